// One autocannon run, in this process, against a server in another: rate, latency percentiles and
// the mix of status codes, failing when the server answers anything but what the scenario expects
// (a rate of errors is not a rate of work).
import autocannon from 'autocannon';

/**
 * Drives `baseUrl` with `requests` (autocannon's list, each connection cycles through it) for
 * `duration` seconds or `amount` requests, over `connections`. `expect(status)` says whether a
 * status is a right answer; any other, or a connection error or a request taking longer than
 * `timeout` seconds (default 10), throws.
 * Returns { requestsPerSecond, p50, p99 (ms), total, statuses: { [status]: count } }.
 */
export async function drive({
  label,
  baseUrl,
  requests,
  connections,
  duration,
  amount,
  timeout = 10,
  expect,
}) {
  const statuses = {};
  const counted = requests.map((request) => ({
    ...request,
    onResponse(status, body, context, headers) {
      statuses[status] = (statuses[status] ?? 0) + 1;
      request.onResponse?.(status, body, context, headers);
    },
  }));
  const result = await autocannon({
    url: baseUrl,
    connections,
    timeout,
    ...(amount ? { amount } : { duration }),
    requests: counted,
  });
  const wrong = Object.entries(statuses).filter(([status]) => !expect(Number(status)));
  if (result.errors > 0 || result.timeouts > 0 || wrong.length > 0) {
    throw new Error(
      `${label}: ${result.errors} connection errors, ${result.timeouts} timeouts, ` +
        `unexpected statuses ${JSON.stringify(Object.fromEntries(wrong))}`,
    );
  }
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    seconds: result.duration,
    statuses,
  };
}

/** Median of numbers (the mean of the middle two for an even count). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return Number.isInteger(middle)
    ? (sorted[middle - 1] + sorted[middle]) / 2
    : sorted[middle - 0.5];
}
