'use strict';
/**
 * Free TCP ports for the n8n processes, the sandbox and the databases a run starts, and which
 * process listens on a port.
 */
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

/**
 * Ports handed out by this process: two calls in a row never give the same port (an n8n whose
 * broker port equals its HTTP port fails to start).
 */
const handedOut = new Set();

/**
 * Ports handed out by any process of this package on this machine: a file per port, holding the
 * pid that took it, kept while that process lives. Two jest workers picking ports at the same
 * moment never get the same one (each checks the port is free before its n8n listens on it).
 */
const PORTS_DIR = path.join(os.tmpdir(), 'n8n-nodes-payouts-ports');

function processAlive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return error.code === 'EPERM';
	}
}

function reservePort(port) {
	fs.mkdirSync(PORTS_DIR, { recursive: true });
	const file = path.join(PORTS_DIR, String(port));
	for (let attempt = 0; attempt < 2; attempt++) {
		try {
			fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
			if (!reservePort.cleanup) {
				reservePort.cleanup = true;
				process.on('exit', () => {
					for (const taken of handedOut)
						if (fs.existsSync(path.join(PORTS_DIR, String(taken))))
							fs.rmSync(path.join(PORTS_DIR, String(taken)), { force: true });
				});
			}
			return true;
		} catch (error) {
			if (error.code !== 'EEXIST') throw error;
			let owner = 0;
			try {
				owner = Number(fs.readFileSync(file, 'utf8')) || 0;
			} catch {
				// being written or removed
			}
			if (owner === process.pid || (owner && processAlive(owner))) return false;
			fs.rmSync(file, { force: true }); // left by a process that is gone
		}
	}
	return false;
}

/** The kernel's range for outgoing connections' local ports: a port from it can be taken by any client before n8n listens. */
function ephemeralRange() {
	try {
		const [low, high] = fs
			.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
			.trim()
			.split(/\s+/)
			.map(Number);
		if (low > 0 && high >= low) return [low, high];
	} catch {
		// not Linux
	}
	return [32768, 60999];
}

function canListen(port) {
	return new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

/**
 * A free TCP port on 127.0.0.1 (or the preferred one when it is free). Chosen at random outside
 * the kernel's range for outgoing connections (10000 up to that range), so that no client's
 * connection takes it between this check and the server's listen; never one this process or
 * another live process of this package handed out (`PORTS_DIR`).
 */
async function freePort(preferred = 0) {
	const take = async (port) =>
		!handedOut.has(port) && (await canListen(port)) && reservePort(port) && handedOut.add(port);
	if (preferred && (await take(preferred))) return preferred;
	const [low, high] = ephemeralRange();
	const [from, to] = low > 12000 ? [10000, low] : [high + 1, 65536];
	for (let attempt = 0; attempt < 500 && to > from; attempt++) {
		const port = from + Math.floor(Math.random() * (to - from));
		if (await take(port)) return port;
	}
	throw new Error(`no free port between ${from} and ${to - 1}`);
}

/**
 * Which process listens on TCP `port` (Linux, from /proc): its pid, null when none listens, or
 * undefined when it cannot be told (no /proc, or a process this user cannot inspect).
 */
function listenerPid(port) {
	if (!fs.existsSync('/proc/net/tcp')) return undefined;
	const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
	const inodes = new Set();
	for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
		let lines = [];
		try {
			lines = fs.readFileSync(table, 'utf8').trim().split('\n').slice(1);
		} catch {
			continue;
		}
		for (const line of lines) {
			const fields = line.trim().split(/\s+/);
			// local address, state 0A (LISTEN), inode
			if (fields[1]?.endsWith(hex) && fields[3] === '0A') inodes.add(fields[9]);
		}
	}
	if (!inodes.size) return null;
	for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
		let fds = [];
		try {
			fds = fs.readdirSync(`/proc/${pid}/fd`);
		} catch {
			continue;
		}
		for (const fd of fds) {
			try {
				const socket = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
				if (socket && inodes.has(socket[1])) return Number(pid);
			} catch {
				// closed meanwhile
			}
		}
	}
	return undefined;
}

/** A process's command line, for a message. */
function commandOf(pid) {
	try {
		return fs
			.readFileSync(`/proc/${pid}/cmdline`, 'utf8')
			.split('\0')
			.join(' ')
			.trim()
			.slice(0, 300);
	} catch {
		return '(gone)';
	}
}

module.exports = { freePort, listenerPid, commandOf };
