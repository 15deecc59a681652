/**
 * Sum of a Prometheus counter over the instances, for the series whose labels contain every
 * `label="value"` given; an instance that does not answer counts 0 (its verdict says so).
 */
export async function counterSum(urls: string[], name: string, labels: Record<string, string> = {}): Promise<number> {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let sum = 0;
  for (const url of urls) {
    let text: string;
    try {
      text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
      if (wanted.some((w) => !line.includes(w))) continue;
      sum += Number(line.slice(line.lastIndexOf(' ') + 1)) || 0;
    }
  }
  return sum;
}
