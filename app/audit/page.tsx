import type { Metadata } from 'next';
import { AuditView } from '@/components/audit/audit-view';
import { AUDIT_PAGE_DEFAULT, parseAuditQuery } from '@/lib/audit';
import { auditPage } from '@/server/http/audit-trail';

export const metadata: Metadata = { title: 'Audit' };
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * The audit trail, filtered by the address's parameters as `GET /api/audit` is; filters that do not parse are
 * said, and the unfiltered trail shown. The gate lets only an operator or an admin open it (READ_ROUTE_ROLES).
 */
export default async function AuditPage({ searchParams }: Props) {
  const params = await searchParams;
  const given = new URLSearchParams(Object.entries(params).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v]] : [])));
  const parsed = parseAuditQuery(given);
  const query = parsed.ok ? parsed.query : { limit: AUDIT_PAGE_DEFAULT };
  const { entries, nextCursor } = await auditPage(query);
  return <AuditView entries={entries} query={query} nextCursor={nextCursor} error={parsed.ok ? null : `The filters could not be read: ${parsed.message}`} />;
}
