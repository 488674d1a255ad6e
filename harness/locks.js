'use strict';
/**
 * Locks between processes of this package on one machine (two test runs, a test run and
 * `npm start`): a folder holding the owner's pid.
 */
const fs = require('node:fs');
const path = require('node:path');

const { log, sleep } = require('./common');

/** One installer at a time per cache folder (two test runs, or a test run and `npm start`). */
async function withLock(lockDir, what, action) {
	const release = await takeLock(lockDir, what);
	try {
		return await action();
	} finally {
		release();
	}
}

/**
 * Takes the lock `lockDir` (a folder holding the owner's pid), waiting while a live process holds
 * it and taking it over from a dead one; returns its release.
 */
async function takeLock(lockDir, what) {
	fs.mkdirSync(path.dirname(lockDir), { recursive: true });
	for (let waited = 0; ; waited++) {
		try {
			fs.mkdirSync(lockDir);
			fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
			break;
		} catch (error) {
			if (error.code !== 'EEXIST') throw error;
			let owner = 0;
			try {
				owner = Number(fs.readFileSync(path.join(lockDir, 'pid'), 'utf8').trim() || 0);
			} catch {
				// the lock is being created or removed
			}
			let alive = false;
			try {
				if (owner) process.kill(owner, 0);
				alive = owner > 0;
			} catch {
				alive = false;
			}
			if (!alive && waited > 2) {
				fs.rmSync(lockDir, { recursive: true, force: true });
				continue;
			}
			if (waited % 30 === 0)
				log(`Waiting for another process (pid ${owner || '?'}) that is ${what}…`);
			await sleep(1000);
		}
	}
	return () => fs.rmSync(lockDir, { recursive: true, force: true });
}

module.exports = { withLock, takeLock };
