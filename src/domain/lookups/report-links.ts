import type { IpScore } from '../scoring/score.ts';

/** URLs of the direct report pages (control plane) for the IP and each matched dimension entity. */
export type ReportLinks = { ip: string; dimensions: Record<string, string> };

export function reportPath(code: string, key: string): string {
  return `/workspace/reports/${code}/${encodeURIComponent(key)}`;
}

export function reportLinks(baseUrl: string, ip: string, score: IpScore): ReportLinks {
  const dimensions: Record<string, string> = {};
  for (const d of score.dimensions) if (d.matched && d.entity) dimensions[d.code] = baseUrl + reportPath(d.code, d.entity.key);
  return { ip: baseUrl + reportPath('ip', ip), dimensions };
}
