import type { IpScore } from '../scoring/score.ts';
import type { DimensionCode } from '../network/types.ts';

/** URLs of the direct report pages (control plane) for the IP and each matched dimension entity. */
export type ReportLinks = { reportLink: string; dimensionLinks: Array<{ code: DimensionCode; url: string }> };

export function reportPath(code: string, key: string): string {
  return `/workspace/reports/${code}/${encodeURIComponent(key)}`;
}

export function reportLinks(baseUrl: string, ip: string, score: IpScore): ReportLinks {
  const dimensionLinks: ReportLinks['dimensionLinks'] = [];
  for (const d of score.dimensions)
    if (d.matched && d.entity) dimensionLinks.push({ code: d.code, url: baseUrl + reportPath(d.code, d.entity.key) });
  return { reportLink: baseUrl + reportPath('ip', ip), dimensionLinks };
}
