// `npm run bench`: Parasol's proxy against the bare upstream (A) and a
// minimal undici proxy (B), interleaved and repeated, medians reported and
// written to bench/results.json. Every server and every load generator runs
// in its own process.
//   npm run bench -- [--seconds 3] [--rounds 12] [--connections 50] [--pause-ms 1000]
//
// The machine's host slows it by up to half for seconds at a time, one case
// or another; so the rounds are short and many, and every ratio a bar is held
// to is the median of the rounds' own ratios (the two cases ran seconds
// apart), printed with the middle half of those ratios.
//
// To compare a variant (analytics off, limits off, …) add a case below with
// `parasol: { config: {...} }`: each distinct config gets its own Parasol process.
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { median, pause, quantile, runLoad, startServerChild, usageOf, type ServerChild } from './proxy/children.js';
import { measureLookup } from './proxy/lookup.js';
import { machineBusyMicros } from './proxy/machine-cpu.js';
import type { Scenario } from './proxy/parasol.js';
import type { LoadResult } from './proxy/protocol.js';

type Payload = 'small' | 'large';

interface BenchCase {
  readonly name: string;
  /** A, B and C feed the ratios; other cases are reported beside them. */
  readonly role?: 'A' | 'B' | 'C';
  readonly target: 'upstream' | 'reference' | 'parasol';
  readonly payloads?: readonly Payload[];
  readonly parasol?: {
    readonly config?: Record<string, unknown>;
    /** Publishes a new backend this often during the run; the run must still see only 2xx. */
    readonly publishEveryMs?: number;
    /** The bench users are unlimited (their own rate_limit_mode), so the limiter is skipped. */
    readonly unlimitedUsers?: boolean;
  };
}

/** The same Parasol without analytics: C over this is the cost of logging every request (bar: at least 0.95). */
const ANALYTICS_OFF: BenchCase = { name: 'C parasol, analytics off', target: 'parasol', payloads: ['small'], parasol: { config: { analytics: { enabled: false } } } };
/** The same Parasol with an unlimited user: C (limits high enough never to refuse) over this is the cost of rate limiting (bar: at least 0.95). */
const LIMITS_OFF: BenchCase = { name: 'C parasol, limits off (unlimited user)', target: 'parasol', payloads: ['small'], parasol: { unlimitedUsers: true } };

// Cases compared in a ratio run next to each other (B then C, C then its
// variants: the rounds go payload by payload), and every other round in the
// reverse order, so a drift of the shared machine's speed favours neither.
const CASES: readonly BenchCase[] = [
  { name: 'A upstream direct', role: 'A', target: 'upstream' },
  { name: 'B reference undici proxy', role: 'B', target: 'reference' },
  { name: 'C parasol (key, limits, analytics)', role: 'C', target: 'parasol' },
  ANALYTICS_OFF,
  LIMITS_OFF,
  { name: 'C parasol, publishing every 250 ms', target: 'parasol', payloads: ['small'], parasol: { publishEveryMs: 250 } },
];

const PAYLOADS: readonly Payload[] = ['small', 'large'];

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '12' },
    connections: { type: 'string', default: '50' },
    'pause-ms': { type: 'string', default: '1000' },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const pauseMs = Number(values['pause-ms']);

console.log(`routing lookup, 1,000 backends …`);
const lookupNs = await measureLookup();
console.log(`  ${lookupNs.toFixed(0)} ns per lookup`);

const upstream = await startServerChild('upstream.ts');
const reference = await startServerChild('reference-proxy.ts', [String(upstream.port)]);
const parasols = new Map<string, ServerChild>();
for (const benchCase of CASES) {
  const key = parasolKey(benchCase);
  if (key !== null && !parasols.has(key)) {
    const scenario: Scenario = scenarioOf(benchCase);
    parasols.set(key, await startServerChild('parasol.ts', [String(upstream.port), JSON.stringify(scenario)]));
  }
}

function scenarioOf(benchCase: BenchCase): Scenario {
  return { config: benchCase.parasol?.config ?? {}, unlimitedUsers: benchCase.parasol?.unlimitedUsers === true };
}

function parasolKey(benchCase: BenchCase): string | null {
  return benchCase.target === 'parasol' ? JSON.stringify(scenarioOf(benchCase)) : null;
}

function serverFor(benchCase: BenchCase): ServerChild {
  if (benchCase.target === 'upstream') return upstream;
  if (benchCase.target === 'reference') return reference;
  return parasols.get(parasolKey(benchCase)!)!;
}

function requestFor(benchCase: BenchCase, payload: Payload): { url: string; headers: Record<string, string> } {
  const server = serverFor(benchCase);
  if (benchCase.target !== 'parasol') return { url: `${server.url}/${payload}`, headers: {} };
  return { url: `${server.url}/bench/${payload}`, headers: { 'X-Api-Key': server.apiKey! } };
}

let publishes = 0;

/** A load result plus CPU time per request: the measured server's, its main thread's, and the whole machine's (load generator and upstream included). */
interface Measured extends LoadResult {
  readonly cpuMicrosPerRequest: number;
  readonly mainThreadCpuMicrosPerRequest: number;
  /** The share of the run's time the server's main thread was busy: near 1, it was the bottleneck. */
  readonly mainThreadBusy: number;
  readonly machineCpuMicrosPerRequest: number;
}

async function measure(benchCase: BenchCase, payload: Payload, options: { seconds: number; rate?: number }): Promise<Measured> {
  const server = serverFor(benchCase);
  const every = benchCase.parasol?.publishEveryMs;
  const publisher = every === undefined ? null : setInterval(() => void server.ask({ publish: ++publishes }, 'published'), every);
  const before = await usageOf(server);
  const machineBefore = machineBusyMicros();
  try {
    const result = await runLoad({ ...requestFor(benchCase, payload), connections, seconds: options.seconds, rate: options.rate });
    const machineAfter = machineBusyMicros();
    const after = await usageOf(server);
    const requests = Math.max(result.total, 1);
    const mainThreadMicros = after.mainThreadCpuMicros - before.mainThreadCpuMicros;
    return {
      ...result,
      cpuMicrosPerRequest: (after.cpuMicros - before.cpuMicros) / requests,
      mainThreadCpuMicrosPerRequest: mainThreadMicros / requests,
      mainThreadBusy: mainThreadMicros / (result.loadedSeconds * 1e6),
      machineCpuMicrosPerRequest: (machineAfter - machineBefore) / requests,
    };
  } finally {
    if (publisher !== null) clearInterval(publisher);
  }
}

const runs = new Map<string, Measured[]>();
const runKey = (benchCase: BenchCase, payload: Payload) => `${benchCase.name} · ${payload}`;
const payloadsOf = (benchCase: BenchCase) => benchCase.payloads ?? PAYLOADS;

console.log('warming up …');
for (const benchCase of CASES) for (const payload of payloadsOf(benchCase)) await measure(benchCase, payload, { seconds: 3 });

for (let round = 1; round <= rounds; round++) {
  for (const payload of PAYLOADS) {
    const cases = CASES.filter((benchCase) => payloadsOf(benchCase).includes(payload));
    for (const benchCase of round % 2 === 1 ? cases : cases.toReversed()) {
      await pause(pauseMs);
      const result = await measure(benchCase, payload, { seconds });
      runs.set(runKey(benchCase, payload), [...(runs.get(runKey(benchCase, payload)) ?? []), result]);
      console.log(`round ${round}  ${runKey(benchCase, payload).padEnd(52)} ${formatRun(result)}`);
    }
  }
}

const medians = Object.fromEntries([...runs].map(([key, results]) => [key, medianOf(results)]));
const caseWithRole = (role: 'A' | 'B' | 'C') => CASES.find((c) => c.role === role)!;
const byRole = (role: 'A' | 'B' | 'C', payload: Payload) => medians[runKey(caseWithRole(role), payload)]!;
/** One case's median req/s over another's: beside the paired ratio, which a bar is held to. */
const ratioOfMedians = (numerator: BenchCase, denominator: BenchCase, payload: Payload) =>
  medians[runKey(numerator, payload)]!.rps / medians[runKey(denominator, payload)]!.rps;
/** Each round's own ratio of two cases' req/s (they ran seconds apart): the median is what a bar is held to. */
interface PairedRatio {
  readonly median: number;
  /** The middle half of the rounds' ratios: how far one round can be trusted. */
  readonly middleHalf: readonly [number, number];
  /** The best round of one over the best of the other: the host only ever slows a run, so each case's best is its least disturbed. */
  readonly bestOverBest: number;
}
const pairedRatio = (numerator: BenchCase, denominator: BenchCase, payload: Payload): PairedRatio => {
  const over = runs.get(runKey(denominator, payload))!;
  const under = runs.get(runKey(numerator, payload))!;
  const perRound = under.map((run, round) => run.rps / over[round]!.rps);
  const best = (results: readonly Measured[]) => Math.max(...results.map((run) => run.rps));
  return { median: median(perRound), middleHalf: [quantile(perRound, 0.25), quantile(perRound, 0.75)], bestOverBest: best(under) / best(over) };
};
const formatPaired = (ratio: PairedRatio) =>
  `${ratio.median.toFixed(3)} (middle half of the rounds ${ratio.middleHalf[0].toFixed(3)}–${ratio.middleHalf[1].toFixed(3)}, best over best ${ratio.bestOverBest.toFixed(3)})`;
const pairedCB = Object.fromEntries(PAYLOADS.map((payload) => [payload, pairedRatio(caseWithRole('C'), caseWithRole('B'), payload)]));
const ratios = Object.fromEntries(
  PAYLOADS.map((payload) => [
    payload,
    {
      'C/B': pairedCB[payload]!.median,
      'C/B paired by round': pairedCB[payload]!,
      'C/B of the medians': ratioOfMedians(caseWithRole('C'), caseWithRole('B'), payload),
      'C/A of the medians': ratioOfMedians(caseWithRole('C'), caseWithRole('A'), payload),
      /** B's CPU per request over C's: the throughput ratio a proxy-bound machine would see. */
      'C/B by CPU per request': byRole('B', payload).cpuMicrosPerRequest / byRole('C', payload).cpuMicrosPerRequest,
      /** The same with each proxy's main thread alone: the throughput ratio when that thread is the bottleneck (see mainThreadBusy). */
      'C/B by main-thread CPU per request': byRole('B', payload).mainThreadCpuMicrosPerRequest / byRole('C', payload).mainThreadCpuMicrosPerRequest,
      /** The same with every process's CPU (load generator and upstream too): what a CPU-bound machine would see. */
      'C/B by machine CPU per request': byRole('B', payload).machineCpuMicrosPerRequest / byRole('C', payload).machineCpuMicrosPerRequest,
    },
  ]),
);
const analyticsOnOffOfMedians = ratioOfMedians(caseWithRole('C'), ANALYTICS_OFF, 'small');
const limitsOnOffOfMedians = ratioOfMedians(caseWithRole('C'), LIMITS_OFF, 'small');
const analyticsOnOff = pairedRatio(caseWithRole('C'), ANALYTICS_OFF, 'small');
/** Off's main-thread CPU per request over on's: what analytics costs the thread that bounds throughput. */
const analyticsOnOffByMainThread = medians[runKey(ANALYTICS_OFF, 'small')]!.mainThreadCpuMicrosPerRequest / byRole('C', 'small').mainThreadCpuMicrosPerRequest;
const limitsOnOff = pairedRatio(caseWithRole('C'), LIMITS_OFF, 'small');

// Added latency: A and C at half of C's peak rate (small payload), timed to the microsecond.
const caseA = CASES.find((c) => c.role === 'A')!;
const caseC = CASES.find((c) => c.role === 'C')!;
const halfRate = Math.round(byRole('C', 'small').rps / 2);
const latencyRuns: { A: Measured[]; C: Measured[] } = { A: [], C: [] };
for (let round = 1; round <= rounds; round++) {
  for (const [label, benchCase] of [['A', caseA], ['C', caseC]] as const) {
    await pause(pauseMs);
    const result = await measure(benchCase, 'small', { seconds, rate: halfRate });
    latencyRuns[label].push(result);
    console.log(`round ${round}  ${`${label} at ${halfRate} req/s`.padEnd(52)} ${formatRun(result, 3)}`);
  }
}
const latencyA = medianOf(latencyRuns.A);
const latencyC = medianOf(latencyRuns.C);
const addedP50 = latencyC.p50 - latencyA.p50;

const failures = [...runs.values(), latencyRuns.A, latencyRuns.C].flat().reduce((sum, run) => sum + run.non2xx + run.errors, 0);
const results = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', node: process.version },
  settings: { seconds, rounds, connections, pause_ms: pauseMs },
  routing_lookup_1000_backends_ns: Math.round(lookupNs),
  throughput: Object.fromEntries([...runs].map(([key, results]) => [key, { median: medians[key], runs: results }])),
  ratios,
  analytics_on_vs_off: analyticsOnOff.median,
  analytics_on_vs_off_paired_by_round: analyticsOnOff,
  analytics_on_vs_off_of_the_medians: analyticsOnOffOfMedians,
  analytics_on_vs_off_by_main_thread_cpu: analyticsOnOffByMainThread,
  limits_on_vs_off: limitsOnOff.median,
  limits_on_vs_off_paired_by_round: limitsOnOff,
  limits_on_vs_off_of_the_medians: limitsOnOffOfMedians,
  latency_at_half_c_peak: { rate: halfRate, A: latencyA, C: latencyC, added_p50_ms: addedP50 },
  failed_requests: failures,
  bars: {
    'C/B >= 0.80 (small)': pairedCB.small!.median >= 0.8,
    'C/B >= 0.80 (large)': pairedCB.large!.median >= 0.8,
    'added p50 <= 0.5 ms at half rate': addedP50 <= 0.5,
    'no non-2xx or errors': failures === 0,
    'lookup < 5 µs': lookupNs < 5000,
    'analytics on/off >= 0.95 (small)': analyticsOnOff.median >= 0.95,
    'limits on/off >= 0.95 (small)': limitsOnOff.median >= 0.95,
  },
};
writeFileSync(new URL('./results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);

console.log('\nmedians');
for (const [key, result] of Object.entries(medians)) console.log(`  ${key.padEnd(52)} ${formatRun(result)}`);
for (const payload of PAYLOADS) {
  const ratio = ratios[payload]!;
  console.log(`  ${payload}: C/B ${formatPaired(pairedCB[payload]!)}`);
  console.log(
    `    of the medians: C/B ${ratio['C/B of the medians'].toFixed(3)}, C/A ${ratio['C/A of the medians'].toFixed(3)}; ` +
      `C/B by CPU per request: server ${ratio['C/B by CPU per request'].toFixed(3)}, main thread ${ratio['C/B by main-thread CPU per request'].toFixed(3)}, machine ${ratio['C/B by machine CPU per request'].toFixed(3)}`,
  );
}
console.log(`  p50 at ${halfRate} req/s: A ${latencyA.p50.toFixed(3)} ms, C ${latencyC.p50.toFixed(3)} ms, added ${addedP50.toFixed(3)} ms`);
console.log(`  routing lookup with 1,000 backends: ${lookupNs.toFixed(0)} ns`);
console.log(`  analytics on/off (small): ${formatPaired(analyticsOnOff)}`);
console.log(`    of the medians ${analyticsOnOffOfMedians.toFixed(3)}, by main-thread CPU per request ${analyticsOnOffByMainThread.toFixed(3)}`);
console.log(`  limits on/off (small): ${formatPaired(limitsOnOff)}`);
console.log(`    of the medians ${limitsOnOffOfMedians.toFixed(3)}`);
console.log(`  failed requests: ${failures}`);
for (const [bar, met] of Object.entries(results.bars)) console.log(`  ${met ? 'PASS' : 'FAIL'}  ${bar}`);
console.log('written to bench/results.json');

await Promise.all([upstream, reference, ...parasols.values()].map((server) => server.stop()));

function medianOf(results: readonly Measured[]): Measured {
  return {
    rps: median(results.map((r) => r.rps)),
    cpuMicrosPerRequest: median(results.map((r) => r.cpuMicrosPerRequest)),
    mainThreadCpuMicrosPerRequest: median(results.map((r) => r.mainThreadCpuMicrosPerRequest)),
    mainThreadBusy: median(results.map((r) => r.mainThreadBusy)),
    machineCpuMicrosPerRequest: median(results.map((r) => r.machineCpuMicrosPerRequest)),
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
    total: results.reduce((sum, r) => sum + r.total, 0),
    loadedSeconds: results.reduce((sum, r) => sum + r.loadedSeconds, 0),
  };
}

function formatRun(result: Measured, digits = 0): string {
  const fixed = (value: number) => value.toFixed(digits);
  return `${result.rps.toFixed(0).padStart(7)} req/s  p50 ${fixed(result.p50)} ms  p99 ${fixed(result.p99)} ms  CPU ${result.cpuMicrosPerRequest.toFixed(1).padStart(5)} µs/req (main thread ${result.mainThreadCpuMicrosPerRequest.toFixed(1).padStart(5)}, ${(100 * result.mainThreadBusy).toFixed(0).padStart(3)} % busy; machine ${result.machineCpuMicrosPerRequest.toFixed(1).padStart(5)})  non-2xx ${result.non2xx}  errors ${result.errors}`;
}
