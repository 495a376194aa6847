/**
 * IP → place (city, region, country) from city mmdb files, fully resolved at load:
 * one walk of each search tree maps every data record to a small place id and sums the
 * addresses of every place (exact sizes, ~1 s for both packaged files). Per request there is
 * one tree descent and two array reads; no record is decoded.
 */
import type { Words } from './address-words.ts';
import { MmdbTree } from './mmdb-tree.ts';
import { PointerTable } from './pointer-table.ts';
import { cityKey, countryKey, placeFromRecord, regionKey, type Place } from './place.ts';
import { FamilyTotals, KeyNumbers } from './sizes.ts';
import type { DimensionEntity } from './types.ts';
import { revive, sharedTexts } from './revive.ts';

type Family = 4 | 6;
export type PlaceEntities = { city: DimensionEntity | null; region: DimensionEntity | null; country: DimensionEntity };
type FamilyIndex = { tree: MmdbTree; placeOf: PointerTable; entities: Array<PlaceEntities | undefined> };
type PlaceCode = 'city' | 'region' | 'country';
/** Per place, the number of its city/region/country key (-1: the data names none); sizes add up per key. */
type KeyColumn = { ids: number[]; numbers: KeyNumbers<string>; totals: FamilyTotals };

export class GeoIndex {
  private readonly places: Place[] = [];
  private readonly placeNumbers = new KeyNumbers<string>(); // build-time only: place identity → index in places
  // build-time only: one copy of each repeated name (dropped after the build: a function cannot cross to the main thread)
  private shared: ((name: string) => string) | null = sharedTexts();
  private readonly families: Partial<Record<Family, FamilyIndex>> = {};
  private readonly keys: Record<PlaceCode, KeyColumn> = {
    city: GeoIndex.column(),
    region: GeoIndex.column(),
    country: GeoIndex.column(),
  };

  private static column(): KeyColumn {
    return { ids: [], numbers: new KeyNumbers(), totals: new FamilyTotals() };
  }

  constructor(trees: Partial<Record<Family, MmdbTree>>) {
    for (const version of [4, 6] as const) {
      const tree = trees[version];
      if (tree?.covers(version)) this.families[version] = this.index(tree, version);
    }
    this.placeNumbers.forget();
    this.shared = null;
    for (const column of Object.values(this.keys)) {
      column.numbers.forget();
      column.totals.seal();
    }
  }

  /** A built index from a worker's clone (see revive.ts). */
  static revive(clone: GeoIndex): GeoIndex {
    const families: GeoIndex['families'] = {};
    for (const version of [4, 6] as const) {
      const family = clone.families[version];
      if (family)
        families[version] = {
          tree: MmdbTree.revive(family.tree),
          placeOf: PointerTable.revive(family.placeOf),
          entities: [],
        };
    }
    const column = ({ ids, totals }: KeyColumn): KeyColumn => ({
      ids,
      numbers: new KeyNumbers(),
      totals: FamilyTotals.revive(totals),
    });
    const one = sharedTexts();
    for (const place of clone.places) {
      place.cc = one(place.cc);
      place.countryName = one(place.countryName);
      if (place.regionName !== null) place.regionName = one(place.regionName);
    }
    return revive(GeoIndex, clone, {
      placeNumbers: new KeyNumbers(),
      families,
      keys: { city: column(clone.keys.city), region: column(clone.keys.region), country: column(clone.keys.country) },
    });
  }

  get placeCount(): number {
    return this.places.length;
  }

  private index(tree: MmdbTree, version: Family): FamilyIndex {
    const placeOf = tree.walk(version);
    const perPlace: number[] = [];
    placeOf.forEach((pointer, addresses, slot) => {
      const place = placeFromRecord(tree.decode(pointer));
      if (place === null) return;
      const id = this.intern(place);
      placeOf.setTag(slot, id);
      perPlace[id] = (perPlace[id] ?? 0) + addresses;
    });
    placeOf.compact();
    const columns = Object.values(this.keys);
    perPlace.forEach((addresses, id) => {
      for (const column of columns) {
        const key = column.ids[id]!;
        if (key !== -1) column.totals.add(version, key, addresses);
      }
    });
    return { tree, placeOf, entities: [] };
  }

  private intern(place: Place): number {
    const id = `${place.cc}\u0000${place.regionName ?? ''}\u0000${place.cityName ?? ''}`;
    const n = this.placeNumbers.of(id);
    if (n === this.places.length) {
      // a new place
      this.places.push({
        cc: this.shared!(place.cc),
        countryName: this.shared!(place.countryName),
        regionName: place.regionName === null ? null : this.shared!(place.regionName),
        cityName: place.cityName,
      });
      // keys are built once per place, not once per record
      const number = (code: PlaceCode, key: string | null) =>
        this.keys[code].ids.push(key === null ? -1 : this.keys[code].numbers.of(key));
      number('city', cityKey(place));
      number('region', regionKey(place));
      number('country', countryKey(place));
    }
    return n;
  }

  /** The place entities of an address, or null when the geo data has no location for it. */
  lookup(words: Words): PlaceEntities | null {
    const family = this.families[words.length === 1 ? 4 : 6];
    if (!family) return null;
    const { pointer } = family.tree.lookup(words);
    if (pointer === 0) return null;
    const id = family.placeOf.tagOf(pointer);
    if (id === -1) return null;
    return family.entities[id] ?? (family.entities[id] = this.entitiesOf(id, words.length === 1 ? 4 : 6));
  }

  private entitiesOf(id: number, version: Family): PlaceEntities {
    const place = this.places[id]!;
    const make = (code: PlaceCode, key: string, name: string): DimensionEntity =>
      Object.freeze({ code, key, name, size: this.keys[code].totals.get(version, this.keys[code].ids[id]!) });
    const city = cityKey(place);
    const region = regionKey(place);
    return {
      city: city === null ? null : make('city', city, place.cityName!),
      region: region === null ? null : make('region', region, place.regionName!),
      country: make('country', countryKey(place), place.countryName),
    };
  }
}
