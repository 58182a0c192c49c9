import fs from 'node:fs';
import path from 'node:path';
import { GgufFileType, readGgufFileInfo } from 'node-llama-cpp';
import { EMBEDDED_PREFIX } from '../../../lib/model-ref';

/**
 * The GGUF files the embedded engine can run: those in the models folder
 * (PLANSCOPE_MODELS_DIR), each named by its file name without `.gguf`, and
 * any file named by its absolute path. What a file says about itself is read
 * from its header (node-llama-cpp's GGUF reader), never guessed from its name.
 */

export const GGUF_EXTENSION = '.gguf';

/** Files listed from the models folder at most: a folder of thousands is someone's mistake, and each costs a header read. */
const MAX_LISTED = 200;

export interface EmbeddedModelInfo {
  /** The name a run records: `embedded:<name in the folder>` or `embedded:/abs/path.gguf`. */
  name: string;
  path: string;
  sizeBytes: number;
  /** As the header's `general.file_type` says it (`Q4_1`, `Q4_K_M`), or null when it does not. */
  quantization: string | null;
  /** The context the model was trained with (`<arch>.context_length`), or null when the header lacks it. */
  contextLength: number | null;
  /** The Jinja chat template in the header, or null: a base model without one is no chat model. */
  chatTemplate: string | null;
  /** The header's `general.name`, or null. */
  displayName: string | null;
  architecture: string | null;
}

/** Why a model named `embedded:...` cannot be found; the message says where it was looked for. */
export class EmbeddedModelMissing extends Error {
  override name = 'EmbeddedModelMissing';
}

/**
 * The file a model name (what follows `embedded:`) stands for: an absolute
 * path ending in `.gguf` as it is, or a name in the models folder with or
 * without its extension. A name with a path separator in it is refused, so no
 * name reaches outside the folder.
 */
export function embeddedModelPath(model: string, modelsDir: string): string {
  if (path.isAbsolute(model)) {
    if (!model.toLowerCase().endsWith(GGUF_EXTENSION)) {
      throw new EmbeddedModelMissing(`${model} does not end in ${GGUF_EXTENSION}: an embedded model named by its path must be a GGUF file.`);
    }
    return path.normalize(model);
  }
  if (model === '' || model.includes('/') || model.includes('\\') || model === '.' || model === '..') {
    throw new EmbeddedModelMissing(`"${model}" is not a file name in the models folder (${modelsDir}); name an absolute path to use a file elsewhere.`);
  }
  const file = model.toLowerCase().endsWith(GGUF_EXTENSION) ? model : `${model}${GGUF_EXTENSION}`;
  return path.join(modelsDir, file);
}

/** The file's header, read without its tensors; throws EmbeddedModelMissing when there is no such file. */
export async function readEmbeddedModel(model: string, modelsDir: string): Promise<EmbeddedModelInfo> {
  const file = embeddedModelPath(model, modelsDir);
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(file);
  } catch {
    throw new EmbeddedModelMissing(
      `No GGUF file ${file} for the embedded model "${model}"` +
        (path.isAbsolute(model) ? '.' : ` (the models folder is ${modelsDir}, PLANSCOPE_MODELS_DIR). Get one with \`npm run models:pull -- <url>\`.`),
    );
  }
  if (!stat.isFile()) throw new EmbeddedModelMissing(`${file} is not a file.`);
  return describe(`${EMBEDDED_PREFIX}:${model}`, file, stat);
}

/** Every `.gguf` file at the top of the models folder (none when it does not exist), by name; a file whose header does not read is left out. */
export async function listEmbeddedModels(modelsDir: string): Promise<EmbeddedModelInfo[]> {
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(modelsDir, { withFileTypes: true });
  } catch {
    return [];
  }
  const files = entries
    .filter((e) => e.isFile() && e.name.toLowerCase().endsWith(GGUF_EXTENSION))
    .map((e) => e.name)
    .sort()
    .slice(0, MAX_LISTED);
  const listed = await Promise.all(
    files.map(async (file) => {
      const full = path.join(modelsDir, file);
      try {
        return await describe(`${EMBEDDED_PREFIX}:${file.slice(0, -GGUF_EXTENSION.length)}`, full, await fs.promises.stat(full));
      } catch {
        // A partial download or another kind of file: nothing a run could load.
        return null;
      }
    }),
  );
  return listed.filter((m): m is EmbeddedModelInfo => m !== null);
}

/** The vocabulary's arrays: most of a header's bytes, and nothing the catalog shows. */
const VOCABULARY_KEYS = ['tokenizer.ggml.tokens', 'tokenizer.ggml.scores', 'tokenizer.ggml.token_type', 'tokenizer.ggml.merges'];

/** Headers read, by path, size and modification time: reading one takes a second or two, and the start page and every run ask. */
const headers = new Map<string, Promise<Omit<EmbeddedModelInfo, 'name'>>>();

async function describe(name: string, file: string, stat: Pick<fs.Stats, 'size' | 'mtimeMs'>): Promise<EmbeddedModelInfo> {
  const key = `${file}\0${stat.size}\0${stat.mtimeMs}`;
  let header = headers.get(key);
  if (!header) {
    header = readHeader(file, stat.size);
    header.catch(() => headers.delete(key));
    headers.set(key, header);
  }
  return { name, ...(await header) };
}

async function readHeader(file: string, sizeBytes: number): Promise<Omit<EmbeddedModelInfo, 'name'>> {
  // A path, never a URL: the reader would fetch one.
  const info = await readGgufFileInfo(file, { sourceType: 'filesystem', readTensorInfo: false, logWarnings: false, ignoreKeys: VOCABULARY_KEYS });
  const general = info.metadata.general;
  const contextLength = (info.architectureMetadata as { context_length?: unknown }).context_length;
  const template = (info.metadata.tokenizer as { chat_template?: unknown } | undefined)?.chat_template;
  return {
    path: file,
    sizeBytes,
    quantization: quantizationName(general.file_type),
    contextLength: typeof contextLength === 'number' && contextLength > 0 ? contextLength : null,
    chatTemplate: typeof template === 'string' && template !== '' ? template : null,
    displayName: typeof general.name === 'string' ? general.name : null,
    architecture: typeof general.architecture === 'string' ? general.architecture : null,
  };
}

function quantizationName(fileType: GgufFileType | undefined): string | null {
  if (fileType === undefined) return null;
  const name = GgufFileType[fileType] as string | undefined;
  return name ? name.replace(/^(MOSTLY|ALL)_/, '') : null;
}
