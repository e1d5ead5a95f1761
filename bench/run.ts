// `npm run bench`: Parasol's proxy against the bare upstream (A) and a
// minimal undici proxy (B), interleaved and repeated, medians reported and
// written to bench/results.json. Every server and every load generator runs
// in its own process.
//   npm run bench -- [--seconds 3] [--rounds 12] [--connections 50] [--pause-ms 1000] [--processes 1] [--cases C,analytics-off]
// (--cases may also name the optional analytics-off-process, limits-off-process.)
//
// --cases runs only the cases named (by id), and reports only the ratios and
// bars whose cases all ran: many rounds of one pair show a change of 1 µs a
// request that twelve rounds of every case would hide in the host's noise.
//
// The machine's host slows it by up to half for seconds at a time, one case
// or another; so the rounds are short and many, and every ratio a bar is held
// to is the median of the rounds' own ratios (the two cases ran seconds
// apart), printed with the middle half of those ratios.
//
// --processes N runs each proxy case in N processes, taking turns round by
// round: a process that runs slower for its whole life sets only a third of
// its case's rounds with three. About one in ten did until V8's pretenuring
// was turned off (src/lib/pretenuring.ts; bench/HISTORY.md). Each process
// then has fewer rounds to warm up in, and the two runs with three (31, 36)
// did not show that it helps, so one stays the default.
//
// To compare a variant (analytics off, limits off, …) add a case below with
// `parasol: { config: {...} }`: each case gets its own Parasol process per
// payload; or, to compare within C's process, a `withinC` case.
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
  /** What --cases names it by. */
  readonly id: string;
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
  /**
   * C without one feature, served by C's own process: through its unlogged
   * backend or by its unlimited user. The pair then shares one heap, one
   * JIT's code and one history, and differs in the feature alone.
   */
  readonly withinC?: 'unlogged backend' | 'unlimited user';
  /** Run only when --cases names it. */
  readonly optional?: boolean;
}

// What a feature costs is C over C without it, both served by C's process
// (bar: at least 0.95). Until run 36 each variant had a process of its own,
// and two processes of the same code differed by 5-10 % in CPU a request
// (run 35) while analytics costs about 3 %: the pair measured the processes
// as much as the feature. The -process cases still measure it that way.
/** C's requests to the same backend with disable_analytics: C over this is the cost of logging every request. */
const ANALYTICS_OFF: BenchCase = { id: 'analytics-off', name: 'C parasol, unlogged backend (same process)', target: 'parasol', payloads: ['small'], withinC: 'unlogged backend' };
/** C's requests by an unlimited user: C (limits high enough never to refuse) over this is the cost of rate limiting. */
const LIMITS_OFF: BenchCase = { id: 'limits-off', name: 'C parasol, unlimited user (same process)', target: 'parasol', payloads: ['small'], withinC: 'unlimited user' };
const ANALYTICS_OFF_PROCESS: BenchCase = { id: 'analytics-off-process', name: 'C parasol, analytics off (own process)', target: 'parasol', payloads: ['small'], parasol: { config: { analytics: { enabled: false } } }, optional: true };
const LIMITS_OFF_PROCESS: BenchCase = { id: 'limits-off-process', name: 'C parasol, limits off (own process)', target: 'parasol', payloads: ['small'], parasol: { unlimitedUsers: true }, optional: true };

// Cases compared in a ratio run next to each other (B then C, C then its
// variants: the rounds go payload by payload), and every other round in the
// reverse order, so a drift of the shared machine's speed favours neither.
const ALL_CASES: readonly BenchCase[] = [
  { id: 'A', name: 'A upstream direct', role: 'A', target: 'upstream' },
  { id: 'B', name: 'B reference undici proxy', role: 'B', target: 'reference' },
  { id: 'C', name: 'C parasol (key, limits, analytics)', role: 'C', target: 'parasol' },
  ANALYTICS_OFF,
  LIMITS_OFF,
  ANALYTICS_OFF_PROCESS,
  LIMITS_OFF_PROCESS,
  { id: 'publishing', name: 'C parasol, publishing every 250 ms', target: 'parasol', payloads: ['small'], parasol: { publishEveryMs: 250 } },
];

const PAYLOADS: readonly Payload[] = ['small', 'large'];

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '12' },
    connections: { type: 'string', default: '50' },
    'pause-ms': { type: 'string', default: '1000' },
    processes: { type: 'string', default: '1' },
    cases: { type: 'string' },
  },
});
const CASES = selectedCases(values.cases);
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const pauseMs = Number(values['pause-ms']);
const processes = Number(values.processes);

console.log(`routing lookup, 1,000 backends …`);
const lookupNs = await measureLookup();
console.log(`  ${lookupNs.toFixed(0)} ns per lookup`);

const upstream = await startServerChild('upstream.ts');
/** A payload only one selected case takes (the large one, when --cases picks C and a variant) has nothing to compare with: not run. */
const comparedPayloads = PAYLOADS.filter((payload) => CASES.length === 1 || CASES.filter((benchCase) => (benchCase.payloads ?? PAYLOADS).includes(payload)).length > 1);
const payloadsOf = (benchCase: BenchCase) => (benchCase.payloads ?? PAYLOADS).filter((payload) => comparedPayloads.includes(payload));

const references = new Map<string, ServerChild[]>();
const parasols = new Map<string, ServerChild[]>();
for (const benchCase of CASES) {
  if (benchCase.target === 'upstream' || benchCase.withinC !== undefined) continue;
  for (const payload of payloadsOf(benchCase)) {
    const started: ServerChild[] = [];
    for (let index = 0; index < processes; index++) {
      started.push(
        benchCase.target === 'reference'
          ? await startServerChild('reference-proxy.ts', [String(upstream.port)])
          : await startServerChild('parasol.ts', [String(upstream.port), JSON.stringify(scenarioOf(benchCase, payload))]),
      );
    }
    (benchCase.target === 'reference' ? references : parasols).set(proxyKey(benchCase, payload), started);
  }
}

function scenarioOf(benchCase: BenchCase, payload: Payload): Scenario {
  // Only the C process whose payload a selected variant takes serves the variants: C large's stays as it was.
  const servesVariants = benchCase.role === 'C' && CASES.some((variant) => variant.withinC !== undefined && payloadsOf(variant).includes(payload));
  return { config: benchCase.parasol?.config ?? {}, unlimitedUsers: benchCase.parasol?.unlimitedUsers === true, variants: servesVariants };
}

/**
 * Proxy processes per case and payload, B's as much as each Parasol's, so
 * that two cases compared differ in what they are only, not in what else
 * their process served before. A history moves a process's speed: in one run
 * (2026-11-24) C, whose process also served the 64 KiB rounds and the
 * publishing case, was faster than an identical process of its own in 8 of
 * 10 rounds, by 8 % at the median, where five identical processes with the
 * same history used the same main-thread CPU per request to within 0.6 %.
 * And once C's large rounds had a process of their own while B's still
 * shared one with its small rounds, C/B large fell from about 1.0 to 0.7-0.8.
 */
function proxyKey(benchCase: BenchCase, payload: Payload): string {
  return `${benchCase.id} ${payload}`;
}

/** The case's process whose turn round `round` (from 1) is. */
function serverFor(benchCase: BenchCase, payload: Payload, round: number): ServerChild {
  if (benchCase.target === 'upstream') return upstream;
  const owner = benchCase.withinC === undefined ? benchCase : caseWithRole('C');
  const started = (benchCase.target === 'reference' ? references : parasols).get(proxyKey(owner, payload))!;
  return started[(round - 1) % started.length]!;
}

function requestFor(benchCase: BenchCase, server: ServerChild, payload: Payload): { url: string; headers: Record<string, string> } {
  if (benchCase.target !== 'parasol') return { url: `${server.url}/${payload}`, headers: {} };
  const prefix = benchCase.withinC === 'unlogged backend' ? '/bench-unlogged/' : '/bench/';
  const apiKey = benchCase.withinC === 'unlimited user' ? server.unlimitedApiKey : server.apiKey;
  return { url: `${server.url}${prefix}${payload}`, headers: { 'X-Api-Key': apiKey! } };
}

let publishes = 0;

/** A load result plus CPU time per request: the measured server's, its main thread's, and the whole machine's (load generator and upstream included). */
interface Measured extends LoadResult {
  readonly cpuMicrosPerRequest: number;
  readonly mainThreadCpuMicrosPerRequest: number;
  /** The share of the run's time the server's main thread was busy: near 1, it was the bottleneck. */
  readonly mainThreadBusy: number;
  readonly machineCpuMicrosPerRequest: number;
  /** A Parasol with analytics on: entries not yet stored when the load stopped, the writer's work still to do (over several rounds: the largest). */
  readonly analyticsBacklog: number | null;
}

async function measure(benchCase: BenchCase, payload: Payload, options: { seconds: number; round: number; rate?: number }): Promise<Measured> {
  const server = serverFor(benchCase, payload, options.round);
  const every = benchCase.parasol?.publishEveryMs;
  const publisher = every === undefined ? null : setInterval(() => void server.ask({ publish: ++publishes }, 'published'), every);
  const before = await usageOf(server);
  const machineBefore = machineBusyMicros();
  try {
    const result = await runLoad({ ...requestFor(benchCase, server, payload), connections, seconds: options.seconds, rate: options.rate });
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
      analyticsBacklog: after.analytics?.pending ?? null,
    };
  } finally {
    if (publisher !== null) clearInterval(publisher);
  }
}

const runs = new Map<string, Measured[]>();
const runKey = (benchCase: BenchCase, payload: Payload) => `${benchCase.name} · ${payload}`;
console.log('warming up …');
for (let round = 1; round <= processes; round++) {
  for (const benchCase of CASES) for (const payload of payloadsOf(benchCase)) await measure(benchCase, payload, { seconds: 3, round });
}

for (let round = 1; round <= rounds; round++) {
  for (const payload of comparedPayloads) {
    const cases = CASES.filter((benchCase) => payloadsOf(benchCase).includes(payload));
    for (const benchCase of round % 2 === 1 ? cases : cases.toReversed()) {
      await pause(pauseMs);
      const result = await measure(benchCase, payload, { seconds, round });
      runs.set(runKey(benchCase, payload), [...(runs.get(runKey(benchCase, payload)) ?? []), result]);
      console.log(`round ${round}  ${runKey(benchCase, payload).padEnd(52)} ${formatRun(result)}`);
    }
  }
}

const medians = Object.fromEntries([...runs].map(([key, results]) => [key, medianOf(results)]));
const [caseA, caseB, caseC] = [caseWithRole('A'), caseWithRole('B'), caseWithRole('C')];
const ran = (...cases: BenchCase[]) => cases.every((benchCase) => CASES.includes(benchCase));
const medianOfCase = (benchCase: BenchCase, payload: Payload) => medians[runKey(benchCase, payload)]!;
/** One case's median req/s over another's: beside the paired ratio, which a bar is held to. */
const ratioOfMedians = (numerator: BenchCase, denominator: BenchCase, payload: Payload) => medianOfCase(numerator, payload).rps / medianOfCase(denominator, payload).rps;
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

/** C/B per payload: paired, of the medians, and by CPU per request (B's over C's: the throughput ratio if that CPU were the bottleneck). */
const ratios = ran(caseB, caseC)
  ? Object.fromEntries(
      PAYLOADS.map((payload) => {
        const [b, c] = [medianOfCase(caseB, payload), medianOfCase(caseC, payload)];
        return [
          payload,
          {
            'C/B paired by round': pairedRatio(caseC, caseB, payload),
            'C/B of the medians': ratioOfMedians(caseC, caseB, payload),
            'C/A of the medians': ran(caseA) ? ratioOfMedians(caseC, caseA, payload) : null,
            /** The whole server process. */
            'C/B by CPU per request': b.cpuMicrosPerRequest / c.cpuMicrosPerRequest,
            /** Each proxy's main thread alone: the throughput ratio when that thread is the bottleneck (see mainThreadBusy). */
            'C/B by main-thread CPU per request': b.mainThreadCpuMicrosPerRequest / c.mainThreadCpuMicrosPerRequest,
            /** Every process's CPU (load generator and upstream too): what a CPU-bound machine would see. */
            'C/B by machine CPU per request': b.machineCpuMicrosPerRequest / c.machineCpuMicrosPerRequest,
          },
        ];
      }),
    )
  : null;

/** C over a variant of it without one feature: what that feature costs. */
const onOff = (off: BenchCase) => {
  if (!ran(caseC, off)) return null;
  const [on, without] = [medianOfCase(caseC, 'small'), medianOfCase(off, 'small')];
  return {
    paired_by_round: pairedRatio(caseC, off, 'small'),
    of_the_medians: ratioOfMedians(caseC, off, 'small'),
    /** Off's main-thread CPU per request over on's: what the feature costs the thread that bounds throughput. */
    by_main_thread_cpu: without.mainThreadCpuMicrosPerRequest / on.mainThreadCpuMicrosPerRequest,
  };
};
const analyticsOnOff = onOff(ANALYTICS_OFF);
const limitsOnOff = onOff(LIMITS_OFF);
const ownProcessOnOff = { analytics: onOff(ANALYTICS_OFF_PROCESS), limits: onOff(LIMITS_OFF_PROCESS) };

// Added latency: A and C at half of C's peak rate (small payload), timed to the microsecond.
const latency = ran(caseA, caseC) ? await measureLatency(Math.round(medianOfCase(caseC, 'small').rps / 2)) : null;

const failures = [...runs.values(), latency?.runs ?? []].flat().reduce((sum, run) => sum + run.non2xx + run.errors, 0);
// A ratio that analytics won by dropping entries would mean nothing: every response must have been logged.
const analyticsDropped = (await Promise.all([...parasols.values()].flat().map(usageOf))).reduce((sum, usage) => sum + (usage.analytics?.dropped ?? 0), 0);
const bars: Record<string, boolean> = { 'no non-2xx or errors': failures === 0, 'lookup < 5 µs': lookupNs < 5000 };
if (parasols.size > 0) bars['no analytics entry dropped'] = analyticsDropped === 0;
if (ratios !== null) for (const payload of PAYLOADS) bars[`C/B >= 0.80 (${payload})`] = ratios[payload]!['C/B paired by round'].median >= 0.8;
if (latency !== null) bars['added p50 <= 0.5 ms at half rate'] = latency.addedP50 <= 0.5;
if (analyticsOnOff !== null) bars['analytics on/off >= 0.95 (small)'] = analyticsOnOff.paired_by_round.median >= 0.95;
if (limitsOnOff !== null) bars['limits on/off >= 0.95 (small)'] = limitsOnOff.paired_by_round.median >= 0.95;
const results = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', node: process.version },
  settings: { seconds, rounds, connections, pause_ms: pauseMs, processes, cases: CASES.map((benchCase) => benchCase.id) },
  routing_lookup_1000_backends_ns: Math.round(lookupNs),
  throughput: Object.fromEntries([...runs].map(([key, results]) => [key, { median: medians[key], runs: results }])),
  ratios,
  analytics_on_vs_off: analyticsOnOff,
  limits_on_vs_off: limitsOnOff,
  on_vs_off_in_own_processes: ownProcessOnOff,
  latency_at_half_c_peak: latency && { rate: latency.rate, A: latency.A, C: latency.C, added_p50_ms: latency.addedP50 },
  failed_requests: failures,
  analytics_entries_dropped: analyticsDropped,
  bars,
};
writeFileSync(new URL('./results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);

console.log('\nmedians');
for (const [key, result] of Object.entries(medians)) console.log(`  ${key.padEnd(52)} ${formatRun(result)}`);
for (const [payload, ratio] of Object.entries(ratios ?? {})) {
  const ofA = ratio['C/A of the medians'];
  console.log(`  ${payload}: C/B ${formatPaired(ratio['C/B paired by round'])}`);
  console.log(
    `    of the medians: C/B ${ratio['C/B of the medians'].toFixed(3)}${ofA === null ? '' : `, C/A ${ofA.toFixed(3)}`}; ` +
      `C/B by CPU per request: server ${ratio['C/B by CPU per request'].toFixed(3)}, main thread ${ratio['C/B by main-thread CPU per request'].toFixed(3)}, machine ${ratio['C/B by machine CPU per request'].toFixed(3)}`,
  );
}
if (latency !== null) console.log(`  p50 at ${latency.rate} req/s: A ${latency.A.p50.toFixed(3)} ms, C ${latency.C.p50.toFixed(3)} ms, added ${latency.addedP50.toFixed(3)} ms`);
console.log(`  routing lookup with 1,000 backends: ${lookupNs.toFixed(0)} ns`);
const onOffLines = [
  ['analytics on/off', analyticsOnOff],
  ['limits on/off', limitsOnOff],
  ['analytics on/off, own processes', ownProcessOnOff.analytics],
  ['limits on/off, own processes', ownProcessOnOff.limits],
] as const;
for (const [name, ratio] of onOffLines) {
  if (ratio === null) continue;
  console.log(`  ${name} (small): ${formatPaired(ratio.paired_by_round)}`);
  console.log(`    of the medians ${ratio.of_the_medians.toFixed(3)}, by main-thread CPU per request ${ratio.by_main_thread_cpu.toFixed(3)}`);
}
console.log(`  failed requests: ${failures}`);
if (parasols.size > 0) console.log(`  analytics entries dropped: ${analyticsDropped}`);
for (const [bar, met] of Object.entries(bars)) console.log(`  ${met ? 'PASS' : 'FAIL'}  ${bar}`);
console.log('written to bench/results.json');

await Promise.all([upstream, ...[...references.values()].flat(), ...[...parasols.values()].flat()].map((server) => server.stop()));

/** A and C, interleaved, at a fixed rate with a client that times each request to the microsecond. */
async function measureLatency(rate: number) {
  const latencyRuns: { A: Measured[]; C: Measured[] } = { A: [], C: [] };
  for (let round = 1; round <= rounds; round++) {
    for (const [label, benchCase] of [['A', caseA], ['C', caseC]] as const) {
      await pause(pauseMs);
      const result = await measure(benchCase, 'small', { seconds, rate, round });
      latencyRuns[label].push(result);
      console.log(`round ${round}  ${`${label} at ${rate} req/s`.padEnd(52)} ${formatRun(result, 3)}`);
    }
  }
  const [A, C] = [medianOf(latencyRuns.A), medianOf(latencyRuns.C)];
  return { rate, A, C, addedP50: C.p50 - A.p50, runs: [...latencyRuns.A, ...latencyRuns.C] };
}

function caseWithRole(role: 'A' | 'B' | 'C'): BenchCase {
  return ALL_CASES.find((benchCase) => benchCase.role === role)!;
}

function selectedCases(ids: string | undefined): readonly BenchCase[] {
  if (ids === undefined) return ALL_CASES.filter((benchCase) => benchCase.optional !== true);
  const wanted = ids.split(',');
  const unknown = wanted.filter((id) => !ALL_CASES.some((benchCase) => benchCase.id === id));
  if (unknown.length > 0) throw new Error(`--cases: unknown ${unknown.join(', ')}; the cases are ${ALL_CASES.map((benchCase) => benchCase.id).join(', ')}`);
  const selected = ALL_CASES.filter((benchCase) => wanted.includes(benchCase.id));
  const orphans = selected.filter((benchCase) => benchCase.withinC !== undefined && !wanted.includes('C'));
  if (orphans.length > 0) throw new Error(`--cases: ${orphans.map((benchCase) => benchCase.id).join(', ')} run in C's process: name C too`);
  return selected;
}

function medianOf(results: readonly Measured[]): Measured {
  return {
    rps: median(results.map((r) => r.rps)),
    cpuMicrosPerRequest: median(results.map((r) => r.cpuMicrosPerRequest)),
    mainThreadCpuMicrosPerRequest: median(results.map((r) => r.mainThreadCpuMicrosPerRequest)),
    mainThreadBusy: median(results.map((r) => r.mainThreadBusy)),
    machineCpuMicrosPerRequest: median(results.map((r) => r.machineCpuMicrosPerRequest)),
    analyticsBacklog: results[0]!.analyticsBacklog === null ? null : Math.max(...results.map((r) => r.analyticsBacklog ?? 0)),
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
  const backlog = result.analyticsBacklog === null ? '' : `  analytics backlog ${result.analyticsBacklog}`;
  return `${result.rps.toFixed(0).padStart(7)} req/s  p50 ${fixed(result.p50)} ms  p99 ${fixed(result.p99)} ms  CPU ${result.cpuMicrosPerRequest.toFixed(1).padStart(5)} µs/req (main thread ${result.mainThreadCpuMicrosPerRequest.toFixed(1).padStart(5)}, ${(100 * result.mainThreadBusy).toFixed(0).padStart(3)} % busy; machine ${result.machineCpuMicrosPerRequest.toFixed(1).padStart(5)})  non-2xx ${result.non2xx}  errors ${result.errors}${backlog}`;
}
