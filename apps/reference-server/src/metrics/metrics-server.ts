import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

/** The one path the metrics listener serves. */
export const metricsPath = '/metrics';

/**
 * The listener of METRICS_PORT (spec Assumptions, "Metrics"): `GET /metrics` (and `HEAD`) answers the
 * registry in Prometheus text format; any other path `404`, another method `405` with `Allow`.
 * A listener of its own, never the API's port, so the metrics can be reachable to the monitoring
 * network only, and a scrape never queues behind API requests in Express. No authentication: the
 * metrics hold no secret and no user data (counts, durations, the process's resources), and the
 * port is bound to HOST like the API's; keep it off the public network.
 */
export function createMetricsServer(registry: Registry): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== metricsPath) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`Not found: the metrics are at GET ${metricsPath}.\n`);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`${req.method} is not allowed here; use GET.\n`);
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('The metrics could not be collected.\n');
      },
    );
  });
}
