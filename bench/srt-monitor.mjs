// bench/srt-monitor.mjs: run one command under srt (npm
// @anthropic-ai/sandbox-runtime) with its Linux violation monitor on, the way
// an embedder does (SandboxManager.initialize(config, undefined, true)), and
// print how many violations it recorded. srt's CLI never turns the monitor
// on, so bench/trace.sh times this script for srt's row.
//   node bench/srt-monitor.mjs PKG_DIR SETTINGS.json COMMAND [SETTLE_MS]
// PKG_DIR: the package's directory (holding dist/index.js). The count is
// printed on stdout as "srt violations: N" after the command has exited and
// no new violation has arrived for SETTLE_MS (default 1000) milliseconds.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [pkg, settings, command, settle = '1000'] = process.argv.slice(2);
if (!pkg || !settings || !command) {
	console.error('usage: node bench/srt-monitor.mjs PKG_DIR SETTINGS.json COMMAND [SETTLE_MS]');
	process.exit(2);
}
const { SandboxManager } = await import(pathToFileURL(join(pkg, 'dist/index.js')).href);
await SandboxManager.initialize(JSON.parse(readFileSync(settings, 'utf8')), undefined, true);
const store = SandboxManager.getSandboxViolationStore();
const wrapped = await SandboxManager.wrapWithSandbox(command);
const code = await new Promise((resolve) => {
	const child = spawn('/bin/bash', ['-c', wrapped], { stdio: 'inherit' });
	child.on('exit', (c, sig) => resolve(sig ? 128 : c));
});
// the monitor's events arrive over a socket: wait until they stop coming
let last = -1;
while (store.getTotalCount() !== last) {
	last = store.getTotalCount();
	await new Promise((r) => setTimeout(r, Number(settle)));
}
console.log(`srt violations: ${store.getTotalCount()}`);
await SandboxManager.reset();
process.exit(code);
