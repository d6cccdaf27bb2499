// The leases of a relayer that shares its routes with nobody (the embedded store): every route is
// held from start to stop. The Redis store's leases (issue 38) implement the same RouteLeases.
import type { RouteLeases } from '../ports.js';

export function createLocalLeases(): RouteLeases {
  let running = false;
  return {
    holds: () => running,
    start(routes, onChange) {
      running = true;
      for (const route of routes) onChange(route, true);
    },
    async stop() {
      running = false;
    },
  };
}
