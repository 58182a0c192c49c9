import type { Health } from '@/lib/api';
import { describeReadPolicy } from '@/lib/policy';
import { OFFLINE_MODEL } from '@/server/config';
import { handle } from '@/server/http/respond';
import { listEmbeddedModels } from '@/server/llm/embedded/catalog';
import { checkOllama } from '@/server/llm/health';
import { checkOpenAIServers } from '@/server/llm/openai/models';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const HEALTH_TIMEOUT_MS = 2000;

export function GET(): Promise<Response> {
  return handle(async () => {
    const { config, bridges, logFile } = getRuntime();
    const [ollama, openaiServers, embedded] = await Promise.all([
      checkOllama(config.ollamaHost, HEALTH_TIMEOUT_MS, { model: config.model, callOptions: config.callOptions }),
      checkOpenAIServers(config.openaiServers, HEALTH_TIMEOUT_MS),
      listEmbeddedModels(config.embedded.modelsDir),
    ]);
    const body: Health = {
      ok: true,
      ollama,
      openaiServers,
      defaultModel: config.model,
      offlineModel: OFFLINE_MODEL,
      workspace: config.workspace,
      maxRounds: config.limits.maxRounds,
      readPolicy: describeReadPolicy(config.pathPolicy, config.secretScan),
      bridges: bridges.stats(),
      logFile: logFile?.status() ?? null,
      embeddedModels: embedded.map((m) => ({ name: m.name, sizeBytes: m.sizeBytes, quantization: m.quantization, contextLength: m.contextLength, chatTemplate: m.chatTemplate !== null })),
    };
    return Response.json(body);
  });
}
