/** One sample line of the Prometheus text format: `name{label="value",…} number`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a scrape (comment lines left out). Label values here hold no quote or comma. */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!match?.[1] || !match[3]) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').split(',').filter(Boolean)) {
      const [key, quoted] = pair.split('=');
      if (key && quoted) labels[key] = quoted.replace(/^"|"$/g, '');
    }
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the sample `name` whose labels include `labels`, or undefined. */
export function sampleValue(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return samples.find(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  )?.value;
}

/** The `institution_api_requests_total` samples as `{ "createUser 201": 2, … }`. */
export function requestCounts(samples: Sample[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const sample of samples) {
    if (sample.name !== 'institution_api_requests_total') continue;
    counts[`${sample.labels.operation} ${sample.labels.status}`] = sample.value;
  }
  return counts;
}

/** GET `url` (a metrics listener's /metrics): its status, content type and samples. */
export async function scrape(url: string) {
  const response = await fetch(url);
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    text,
    samples: parseSamples(text),
  };
}
