/**
 * IP → network owner (subnet, asn, org, isp).
 * Sources, most trusted first: an operator GeoIP2 ISP mmdb, an operator GeoLite2/GeoIP2 ASN
 * mmdb, then the packaged announced-range CSVs. Organisation and brand names live in string
 * tables; rows and mmdb records refer to them by index, and entity objects are created lazily
 * once per (family, id) and shared by every resolve.
 */
import type { Words } from './address-words.ts';
import { OrgTable } from './asn-csv.ts';
import { cidrText, prefixInsideRange, prefixSize } from './cidr.ts';
import { ispBrandName, orgKeyOf } from './isp-brand.ts';
import { MmdbTree } from './mmdb-tree.ts';
import { PointerTable } from './pointer-table.ts';
import { findRow, rowEnd, rowSize, rowStart, type RangeTable } from './range-table.ts';
import { AsnTotals, FamilyTotals, KeyNumbers } from './sizes.ts';
import { revive, sharedTexts } from './revive.ts';
import type { DimensionEntity } from './types.ts';

type Family = 4 | 6;
/** Who holds an address: asn 0 / org -1 when the source does not say. */
type Owner = { asn: number; orgId: number; brandId: number };
export type OwnerMatch = {
  subnet: { cidr: string; size: number; source: 'announced' | 'fallback' };
  asn: DimensionEntity | null;
  org: DimensionEntity | null;
  isp: DimensionEntity | null;
};
type MmdbOwners = { tree: MmdbTree; ownerOf: Record<Family, PointerTable> };
type AsnRecord = {
  autonomous_system_number?: unknown;
  autonomous_system_organization?: unknown;
  isp?: unknown;
  organization?: unknown;
};

export class OwnerIndex {
  readonly orgs = new OrgTable();
  /** Per org id, the number of its key: names that differ only in case or spacing share one key and one size. */
  private readonly orgKeyIds: number[] = [];
  private readonly orgKeyNumbers = new KeyNumbers<string>(); // build-time only
  private readonly orgBrand: number[] = [];
  private readonly brandNames: string[] = []; // first spelling seen wins
  private readonly brandNumbers = new KeyNumbers<string>(); // build-time only: brand key → index in brandNames
  private readonly tables: Partial<Record<Family, RangeTable>> = {};
  private readonly mmdbs: MmdbOwners[] = [];
  private readonly owners: Owner[] = []; // decoded mmdb records, indexed by PointerTable tags
  // addresses per entity (sizes.ts): asn by number, org by key number, isp by brand id
  private readonly asnTotals = new AsnTotals();
  private readonly orgTotals = new FamilyTotals();
  private readonly ispTotals = new FamilyTotals();
  private readonly cache: Record<
    Family,
    { asn: Map<number, DimensionEntity>; org: DimensionEntity[]; isp: DimensionEntity[] }
  > = {
    4: { asn: new Map(), org: [], isp: [] },
    6: { asn: new Map(), org: [], isp: [] },
  };

  /** Register an announced-range table whose org ids index `this.orgs`. */
  addTable(table: RangeTable): void {
    this.tables[table.version] = table;
    this.describeOrgs();
    // sum per AS and per org id first, then once per key: far cheaper than a map update per row
    const byAsn = new Map<number, number>();
    const byOrg = new Float64Array(this.orgs.names.length);
    for (let row = 0; row < table.count; row++) {
      const size = rowSize(table, row);
      const asn = table.asns[row]!;
      byAsn.set(asn, (byAsn.get(asn) ?? 0) + size);
      const orgId = table.orgIds[row]!;
      byOrg[orgId] = byOrg[orgId]! + size;
    }
    for (const [asn, size] of byAsn) if (asn > 0) this.asnTotals.add(table.version, asn, size);
    byOrg.forEach((size, orgId) => {
      if (size > 0) this.count(table.version, { asn: 0, orgId, brandId: this.orgBrand[orgId]! }, size);
    });
  }

  /** Register an operator ASN or ISP mmdb (ISP first: later ones are consulted after earlier ones). */
  addMmdb(tree: MmdbTree, kind: 'asn' | 'isp'): void {
    const walk = (version: Family): PointerTable => {
      const table = tree.walk(version);
      table.forEach((pointer, addresses, slot) => {
        const owner = this.ownerFromRecord(tree.decode<AsnRecord>(pointer), kind);
        table.setTag(slot, this.owners.length);
        this.owners.push(owner);
        this.count(version, owner, addresses);
      });
      table.compact();
      return table;
    };
    this.mmdbs.push({ tree, ownerOf: { 4: walk(4), 6: walk(6) } });
  }

  private ownerFromRecord(record: AsnRecord | null, kind: 'asn' | 'isp'): Owner {
    const asn = typeof record?.autonomous_system_number === 'number' ? record.autonomous_system_number : 0;
    const orgField = kind === 'isp' ? record?.organization : record?.autonomous_system_organization;
    const orgName = typeof orgField === 'string' && orgField.trim() !== '' ? orgField.trim() : null;
    const orgId = orgName === null ? -1 : this.orgs.intern(orgName);
    this.describeOrgs();
    const ispField = kind === 'isp' && typeof record?.isp === 'string' && record.isp.trim() !== '' ? record.isp : null;
    const brandId = ispField !== null ? this.brandOf(ispField) : orgId === -1 ? -1 : this.orgBrand[orgId]!;
    return { asn, orgId, brandId };
  }

  /** Fill org keys and brands for org ids added since the last call. */
  private describeOrgs(): void {
    for (let id = this.orgKeyIds.length; id < this.orgs.names.length; id++) {
      const name = this.orgs.names[id]!;
      this.orgKeyIds.push(this.orgKeyNumbers.of(orgKeyOf(name)));
      this.orgBrand.push(this.brandOf(name));
    }
  }

  private brandOf(name: string): number {
    const brand = ispBrandName(name);
    const id = this.brandNumbers.of(brand.toLowerCase());
    if (id === this.brandNames.length) this.brandNames.push(brand); // a new key
    return id;
  }

  private count(version: Family, owner: Owner, addresses: number): void {
    if (owner.asn > 0) this.asnTotals.add(version, owner.asn, addresses);
    if (owner.orgId >= 0) this.orgTotals.add(version, this.orgKeyIds[owner.orgId]!, addresses);
    if (owner.brandId >= 0) this.ispTotals.add(version, owner.brandId, addresses);
  }

  /** Drop build-time lookup maps; call once every source has been added. */
  seal(): void {
    this.orgs.seal();
    for (const totals of [this.asnTotals, this.orgTotals, this.ispTotals]) totals.seal();
    this.brandNumbers.forget();
    this.orgKeyNumbers.forget();
  }

  /** A sealed index from a worker's clone (see revive.ts). */
  static revive(clone: OwnerIndex): OwnerIndex {
    const one = sharedTexts();
    for (const name of clone.orgs.names) one(name);
    return revive(OwnerIndex, clone, {
      orgs: OrgTable.revive(clone.orgs),
      brandNames: clone.brandNames.map(one),
      orgKeyNumbers: new KeyNumbers(),
      brandNumbers: new KeyNumbers(),
      mmdbs: clone.mmdbs.map(({ tree, ownerOf }) => ({
        tree: MmdbTree.revive(tree),
        ownerOf: { 4: PointerTable.revive(ownerOf[4]), 6: PointerTable.revive(ownerOf[6]) },
      })),
      asnTotals: AsnTotals.revive(clone.asnTotals),
      orgTotals: FamilyTotals.revive(clone.orgTotals),
      ispTotals: FamilyTotals.revive(clone.ispTotals),
    });
  }

  get rangeCounts(): { v4: number; v6: number } {
    return { v4: this.tables[4]?.count ?? 0, v6: this.tables[6]?.count ?? 0 };
  }

  lookup(words: Words): OwnerMatch {
    const version: Family = words.length === 1 ? 4 : 6;
    const bits = words.length * 32;
    for (const source of this.mmdbs) {
      const { pointer, prefix } = source.tree.lookup(words);
      const tag = pointer === 0 ? -1 : source.ownerOf[version].tagOf(pointer);
      const owner = tag === -1 ? undefined : this.owners[tag];
      if (owner !== undefined && (owner.asn > 0 || owner.orgId >= 0)) {
        return {
          subnet: { cidr: cidrText(words, prefix), size: prefixSize(bits, prefix), source: 'announced' },
          ...this.entities(version, owner),
        };
      }
    }
    const table = this.tables[version];
    const row = table ? findRow(table, words) : -1;
    if (table && row !== -1) {
      const prefix = prefixInsideRange(words, rowStart(table, row), rowEnd(table, row));
      const orgId = table.orgIds[row]!;
      const owner = { asn: table.asns[row]!, orgId, brandId: this.orgBrand[orgId]! };
      return {
        subnet: { cidr: cidrText(words, prefix), size: prefixSize(bits, prefix), source: 'announced' },
        ...this.entities(version, owner),
      };
    }
    const fallback = version === 4 ? 24 : 48;
    return {
      subnet: { cidr: cidrText(words, fallback), size: prefixSize(bits, fallback), source: 'fallback' },
      asn: null,
      org: null,
      isp: null,
    };
  }

  private entities(version: Family, owner: Owner): Pick<OwnerMatch, 'asn' | 'org' | 'isp'> {
    const cache = this.cache[version];
    let asn: DimensionEntity | null = null;
    if (owner.asn > 0) {
      asn = cache.asn.get(owner.asn) ?? null;
      if (asn === null) {
        const key = `AS${owner.asn}`;
        asn = Object.freeze({ code: 'asn', key, name: key, size: this.asnTotals.get(version, owner.asn) });
        cache.asn.set(owner.asn, asn);
      }
    }
    let org: DimensionEntity | null = null;
    if (owner.orgId >= 0) {
      const name = this.orgs.names[owner.orgId]!;
      org = cache.org[owner.orgId] ??= Object.freeze({
        code: 'org',
        key: orgKeyOf(name),
        name,
        size: this.orgTotals.get(version, this.orgKeyIds[owner.orgId]!),
      });
    }
    let isp: DimensionEntity | null = null;
    if (owner.brandId >= 0) {
      const name = this.brandNames[owner.brandId]!;
      isp = cache.isp[owner.brandId] ??= Object.freeze({
        code: 'isp',
        key: name.toLowerCase(),
        name,
        size: this.ispTotals.get(version, owner.brandId),
      });
    }
    return { asn, org, isp };
  }
}
