/**
 * The entities of a Hierarchy as scoring sees them. Two rules shared by roll-up and scoring:
 *   - the IP itself is always an entity (keyed by its canonical text) even if a hierarchy
 *     builder left it empty;
 *   - a special-purpose address (private, loopback, documentation…) belongs to no network or
 *     place, so only its `ip` dimension can carry evidence.
 */
import { DIMENSION_CODES, type DimensionCode, type DimensionEntity, type Hierarchy } from '../network/types.ts';

export type ScoringDimension = { code: DimensionCode; entity: DimensionEntity | null; reason: string | null };

export const SPECIAL_REASON = 'special-purpose address: only the IP itself can carry evidence';

/** One entry per code, in DIMENSION_CODES order, whatever order or gaps the input has. */
export function scoringDimensions(h: Hierarchy): ScoringDimension[] {
  return DIMENSION_CODES.map((code) => {
    const found = h.dimensions.find((d) => d.code === code);
    if (code === 'ip') {
      const entity = found?.entity ?? { code: 'ip', key: h.ip, name: h.ip, size: 1 };
      return { code, entity, reason: null };
    }
    if (h.special !== null) return { code, entity: null, reason: found?.reason ?? SPECIAL_REASON };
    if (!found || found.entity === null) {
      return { code, entity: null, reason: found?.reason ?? 'the hierarchy has no entity for this dimension' };
    }
    return { code, entity: found.entity, reason: null };
  });
}
