/**
 * A counterfactual for the sweep (`--subnet-at-24`): the network index with every IPv4 `subnet` entity larger than
 * a /24 replaced by the /24 that holds the address (key, name and size of that /24). It measures what a /24
 * neighbourhood would do to the quality figures without changing the service: the documented `subnet` is the
 * announced prefix (docs/risk-model.md), and redefining it is a change of the API (decision 0059).
 * IPv6 addresses are left as they are (the worlds draw IPv4 addresses).
 */
import type { Hierarchy, NetworkIndex } from '../../src/domain/network/types.ts';

const V4_24 = 256;

function at24(h: Hierarchy): Hierarchy {
  if (h.version !== 4 || h.special !== null) return h;
  const subnet = h.dimensions.find((d) => d.code === 'subnet')?.entity;
  if (!subnet || subnet.size <= V4_24) return h;
  const [a, b, c] = h.ip.split('.');
  const key = `${a}.${b}.${c}.0/24`;
  return {
    ...h,
    dimensions: h.dimensions.map((d) =>
      d.code === 'subnet' ? { ...d, entity: { code: 'subnet', key, name: key, size: V4_24 } } : d,
    ),
  };
}

export function withSubnetAt24(network: NetworkIndex): NetworkIndex {
  return new Proxy(network, {
    get(target, prop) {
      if (prop === 'resolve') return (ip: string) => at24(target.resolve(ip));
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
