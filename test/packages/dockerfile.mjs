// Reads the Dockerfile and prints its final stage as shell commands for
// container-flow.sh to replay in a Debian root (no Docker engine needed):
//   df_run CMD | df_copy_from STAGE SRC DST | df_copy SRC DST | df_env NAME VALUE
//   df_user U | df_workdir D | df_volume D | df_expose PORT | df_healthcheck ARGV... | df_cmd ARGV...
// and, for each rule of the image the final stage breaks, df_problem TEXT.
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? 'Dockerfile';
const quote = (value) => `'${String(value).replace(/'/g, `'\\''`)}'`;
const line = (...words) => console.log(words.map(quote).join(' '));

/** Instructions as [KEYWORD, rest], continuation lines joined, comments dropped. */
function instructions(text) {
  const joined = text.split('\n').filter((l) => !/^\s*#/.test(l)).join('\n').replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [keyword, ...rest] = l.split(/\s+/);
      return [keyword.toUpperCase(), l.slice(keyword.length).trim()];
    });
}

/** An exec-form array (["a", "b"]) or null for shell form. */
function execForm(rest) {
  try {
    const value = JSON.parse(rest);
    return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : null;
  } catch {
    return null;
  }
}

const stages = [];
for (const [keyword, rest] of instructions(readFileSync(file, 'utf8'))) {
  if (keyword === 'FROM') stages.push({ from: rest, steps: [] });
  else stages.at(-1)?.steps.push([keyword, rest]);
}
const problems = [];
if (stages.length < 2) problems.push('a multi-stage build: a build stage and a runtime stage');
const buildStage = stages.slice(0, -1).find((s) => / AS build$/i.test(s.from));
const releaseOut = buildStage?.steps.map(([, rest]) => rest.match(/scripts\/build-release --out (\S+)/)?.[1]).find(Boolean);
if (releaseOut === undefined) problems.push('a stage "build" that runs scripts/build-release --out DIR');

const seen = new Set();
for (const [keyword, rest] of stages.at(-1)?.steps ?? []) {
  seen.add(keyword);
  if (keyword === 'RUN') line('df_run', rest);
  else if (keyword === 'COPY') {
    const from = rest.match(/^--from=(\S+)\s+(\S+)\s+(\S+)$/);
    if (from) line('df_copy_from', from[1], from[2] === releaseOut ? 'release' : from[2], from[3]);
    else line('df_copy', ...rest.split(/\s+/));
  } else if (keyword === 'ENV') {
    for (const [, name, value] of rest.matchAll(/(\w+)=("[^"]*"|\S+)/g)) line('df_env', name, value.replace(/^"|"$/g, ''));
  } else if (keyword === 'USER') {
    if (/^(root|0)(:|$)/.test(rest)) problems.push('a USER that is not root');
    line('df_user', rest);
  }
  else if (keyword === 'WORKDIR') line('df_workdir', rest);
  else if (keyword === 'VOLUME') for (const dir of execForm(rest) ?? rest.split(/\s+/)) line('df_volume', dir);
  else if (keyword === 'EXPOSE') line('df_expose', rest.split('/')[0]);
  else if (keyword === 'HEALTHCHECK') {
    const argv = execForm(rest.replace(/^(--\S+\s+)*CMD\s+/, ''));
    if (argv === null || !argv.join(' ').includes('/api-umbrella/v1/health')) problems.push('HEALTHCHECK: an exec-form CMD on /api-umbrella/v1/health');
    else line('df_healthcheck', ...argv);
  } else if (keyword === 'CMD') {
    const argv = execForm(rest);
    if (argv === null) problems.push('CMD in exec form, so SIGTERM reaches Parasol and not a shell');
    else line('df_cmd', ...argv);
  } else if (keyword === 'STOPSIGNAL' && rest !== 'SIGTERM') problems.push('STOPSIGNAL SIGTERM (or none)');
}
for (const needed of ['USER', 'VOLUME', 'EXPOSE', 'HEALTHCHECK', 'CMD']) {
  if (!seen.has(needed)) problems.push(`a ${needed} instruction in the runtime stage`);
}
for (const problem of problems) line('df_problem', problem);
