import { createHash } from 'node:crypto';

/** An artifact as stored, its content as text. */
export interface Artifact {
  name: string;
  mediaType: string;
  bytes: number;
  sha256: string;
  content: string;
}

/** An artifact ready to be written by a later `append`, in that event's transaction. */
export interface PendingArtifact {
  name: string;
  mediaType: string;
  buffer: Buffer;
  sha256: string;
}

export function prepareArtifact(name: string, content: string, mediaType = 'text/plain'): PendingArtifact {
  const buffer = Buffer.from(content, 'utf8');
  return { name, mediaType, buffer, sha256: createHash('sha256').update(buffer).digest('hex') };
}
