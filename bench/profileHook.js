'use strict';
/**
 * A CPU profile of n8n's process over one measured stream only (not its start-up, not the fill of
 * its history), for bench/profile.ts to read. `node --cpu-prof` profiles a whole life and writes
 * only at a clean exit, which a stopped n8n may not reach; this starts and stops V8's profiler from
 * inside, on the benchmark's signal.
 *
 * The benchmark starts n8n with NODE_OPTIONS=`--require <this file>` and BENCH_PROFILE_DIR, writes
 * the stream's name to <dir>/next and sends SIGUSR2: the profiler starts. The next SIGUSR2 stops it
 * and writes <dir>/<name>.cpuprofile. Child processes (n8n's task runner) load it too and are
 * never signalled.
 */
const fs = require('node:fs');
const inspector = require('node:inspector');
const path = require('node:path');

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
	const session = new inspector.Session();
	session.connect();
	let name;
	const post = (method) =>
		new Promise((resolve, reject) =>
			session.post(method, (error, result) => (error ? reject(error) : resolve(result))),
		);
	process.on('SIGUSR2', () => {
		if (name === undefined) {
			name = fs.readFileSync(path.join(dir, 'next'), 'utf8').trim();
			void post('Profiler.enable').then(() => post('Profiler.start'));
			return;
		}
		const file = path.join(dir, `${name}.cpuprofile`);
		name = undefined;
		void post('Profiler.stop').then(({ profile }) => {
			// Written under another name first: the benchmark waits for the file to appear whole.
			fs.writeFileSync(`${file}.part`, JSON.stringify(profile));
			fs.renameSync(`${file}.part`, file);
		});
	});
}
