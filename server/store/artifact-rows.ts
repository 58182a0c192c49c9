import type { PendingArtifact } from './artifact';
import type { Artifact } from './artifact';

/** An artifact as both stores keep it: its text as bytes, with its size and hash. */
export interface StoredArtifact {
  name: string;
  media_type: string;
  bytes: number;
  sha256: string;
  content: Buffer;
}

export function toArtifact(row: StoredArtifact): Artifact {
  return { name: row.name, mediaType: row.media_type, bytes: row.bytes, sha256: row.sha256, content: row.content.toString('utf8') };
}

/** An artifact as its stored bytes, as a store writes them. */
export function toPendingArtifact(row: Omit<StoredArtifact, 'bytes'>): PendingArtifact {
  return { name: row.name, mediaType: row.media_type, sha256: row.sha256, buffer: row.content };
}

/** The text of an artifact's first bytes; a character the cut splits is left out, not mangled. */
export function headText(head: Buffer): string {
  return new TextDecoder('utf-8').decode(head, { stream: true });
}

/** One artifact per name, the last written winning, as writing them one after another would leave them. */
export function lastByName<T extends { name: string }>(artifacts: readonly T[]): T[] {
  return [...new Map(artifacts.map((a) => [a.name, a])).values()];
}
