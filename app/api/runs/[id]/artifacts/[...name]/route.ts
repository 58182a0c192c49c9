import { handle } from '@/server/http/respond';
import { RequestError } from '@/server/errors';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export function GET(_request: Request, { params }: { params: Promise<{ id: string; name: string[] }> }): Promise<Response> {
  return handle(async () => {
    const { id, name } = await params;
    // Next has already decoded each segment once; decoding again would make `%2525` name `%25`'s artifact
    // and throw on a lone `%`. A `/` inside a segment came from `%2F`: names are addressed segment by segment.
    const artifactName = name.join('/');
    const artifact = name.some((segment) => segment.includes('/')) ? null : await getRuntime().store.getArtifact(id, artifactName);
    if (!artifact) throw new RequestError('artifact_not_found', `Run ${id} has no artifact ${artifactName}.`);
    return new Response(artifact.content, {
      headers: {
        // Served as text whatever it holds: raw model output and file contents are never rendered as HTML.
        'Content-Type': `${artifact.mediaType === 'application/json' ? 'application/json' : 'text/plain'}; charset=utf-8`,
        'X-Content-Type-Options': 'nosniff',
        'X-Artifact-Sha256': artifact.sha256,
        'Cache-Control': 'private, max-age=31536000, immutable',
      },
    });
  });
}
