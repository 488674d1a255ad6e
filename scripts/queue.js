#!/usr/bin/env node
'use strict';
/**
 * n8n in queue mode (`npm run start:queue`, and the queue-mode end-to-end test): Postgres and Redis
 * from Debian packages, one n8n main and two `n8n worker` processes, each with this package in its
 * own user folder, one encryption key, the sandbox, the "Payouts Sandbox" credential, the examples
 * and the demo owner login of `npm start`. Ctrl-C stops everything it started.
 *
 * Environment (all optional): PAYOUTS_QUEUE_DIR (state: user folders, Postgres data, logs;
 * default .cache/queue in this checkout), N8N_PORT (5678), PAYOUTS_SANDBOX_PORT (5680),
 * PAYOUTS_POSTGRES_PORT (5433), PAYOUTS_REDIS_PORT (6380), PAYOUTS_WORKER_PORTS (health check
 * ports of the workers, "5691,5692"); a port that is taken is replaced by a free one.
 */
const { execFileSync, spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const n8n = require('../harness');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** The database and role n8n uses; the cluster trusts local connections (a local demo and tests only). */
const DATABASE = { name: 'n8n', user: 'n8n', password: 'n8n' };

/** Postgres' programs: Debian keeps them in /usr/lib/postgresql/<version>/bin, off PATH. */
function postgresBinDir() {
	const debian = '/usr/lib/postgresql';
	if (fs.existsSync(debian)) {
		const versions = fs
			.readdirSync(debian)
			.filter((version) => fs.existsSync(path.join(debian, version, 'bin', 'initdb')))
			.sort((a, b) => Number(b) - Number(a));
		if (versions.length) return path.join(debian, versions[0], 'bin');
	}
	const found = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
	return found ? path.dirname(fs.realpathSync(found)) : undefined;
}

function redisServerBin() {
	const found = spawnSync('sh', ['-c', 'command -v redis-server'], {
		encoding: 'utf8',
	}).stdout.trim();
	return found || (fs.existsSync('/usr/bin/redis-server') ? '/usr/bin/redis-server' : undefined);
}

/** What queue mode needs from the machine and does not have: Debian package names. */
function missingQueueTools() {
	const missing = [];
	if (!postgresBinDir()) missing.push('postgresql');
	if (!redisServerBin()) missing.push('redis-server');
	return missing;
}

/**
 * Installs Postgres and Redis from Debian packages when missing (as root, with apt-get), else
 * throws saying what to install. Installing them takes about a minute.
 */
function ensureQueueTools() {
	const missing = missingQueueTools();
	if (!missing.length) return;
	if (!isRoot() || !fs.existsSync('/usr/bin/apt-get')) {
		throw new Error(
			`queue mode needs ${missing.join(' and ')}: install them (sudo apt-get install -y ${missing.join(' ')}) and run again`,
		);
	}
	n8n.log(`Installing ${missing.join(' and ')} from Debian packages (apt-get, about a minute)…`);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	execFileSync('apt-get', ['update'], { stdio: ['ignore', 'ignore', 'inherit'], env });
	execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing], {
		stdio: ['ignore', 'ignore', 'inherit'],
		env,
	});
	const still = missingQueueTools();
	if (still.length)
		throw new Error(
			`apt-get installed ${missing.join(', ')} but ${still.join(', ')} still cannot be found`,
		);
}

/** initdb and postgres refuse root: as root they run as Debian's `postgres` user. */
function postgresOwner() {
	if (!isRoot()) return {};
	const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
	return { uid: id('-u'), gid: id('-g') };
}

/** Can the postgres user reach `dir`? (Every ancestor must be searchable by others, e.g. not under /root.) */
function reachableByPostgres(dir) {
	if (!isRoot()) return true;
	for (let current = path.resolve(dir); ; current = path.dirname(current)) {
		if (fs.existsSync(current) && (fs.statSync(current).mode & 0o001) === 0) return false;
		if (current === path.dirname(current)) return true;
	}
}

function waitForExit(child, ms) {
	if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
	return new Promise((resolve) => {
		const timer = setTimeout(() => resolve(false), ms);
		child.once('exit', () => {
			clearTimeout(timer);
			resolve(true);
		});
	});
}

/** SIGTERM (or `signal`), then SIGKILL after `graceMs`. */
async function stopChild(child, { signal = 'SIGTERM', graceMs = 15000 } = {}) {
	if (!child || child.exitCode !== null || child.signalCode !== null) return;
	child.kill(signal);
	if (!(await waitForExit(child, graceMs))) {
		child.kill('SIGKILL');
		await waitForExit(child, 5000);
	}
}

/** A long-running program whose output goes to a file (not a pipe: it must not depend on us to log). */
function spawnLogged(command, args, logFile, options = {}) {
	const fd = fs.openSync(logFile, 'a');
	const child = spawn(command, args, { stdio: ['ignore', fd, fd], ...options });
	fs.closeSync(fd);
	return child;
}

async function waitUntil(what, check, { timeoutSeconds = 120, child, logFile } = {}) {
	const deadline = Date.now() + timeoutSeconds * 1000;
	for (;;) {
		if (child && (child.exitCode !== null || child.signalCode !== null)) {
			throw new Error(
				`${what}: the process exited (${child.exitCode ?? child.signalCode})${logFile ? `; its log:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}` : ''}`,
			);
		}
		try {
			if (await check()) return;
		} catch {
			// not ready yet
		}
		if (Date.now() > deadline)
			throw new Error(
				`${what}: not ready within ${timeoutSeconds} s${logFile ? `; its log is ${logFile}` : ''}`,
			);
		await sleep(250);
	}
}

function psql(bin, port, sql) {
	return execFileSync(
		path.join(bin, 'psql'),
		['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-tAc', sql],
		{ encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
	).trim();
}

/** The claims table of the queue-mode template, as its user creates it: examples/queue-claims.sql, in n8n's database, as n8n's role. */
const CLAIMS_SQL = path.join(n8n.ROOT, 'examples', 'queue-claims.sql');
function createClaimsTable(port) {
	execFileSync(
		path.join(postgresBinDir(), 'psql'),
		[
			'-h',
			'127.0.0.1',
			'-p',
			String(port),
			'-U',
			DATABASE.user,
			'-d',
			DATABASE.name,
			'-v',
			'ON_ERROR_STOP=1',
			'-q',
			'-f',
			CLAIMS_SQL,
		],
		{ stdio: ['ignore', 'pipe', 'pipe'] },
	);
}

/** The credential the template's Postgres nodes use ("Payouts Claims Database"), pointing at `port`. */
const CLAIMS_CREDENTIAL = { id: 'payoutsClaimsDb01', name: 'Payouts Claims Database' };
function claimsCredential(port) {
	return {
		...CLAIMS_CREDENTIAL,
		type: 'postgres',
		data: {
			host: '127.0.0.1',
			port,
			database: DATABASE.name,
			user: DATABASE.user,
			password: DATABASE.password,
			ssl: 'disable',
			allowUnauthorizedCerts: false,
			maxConnections: 20,
		},
	};
}

/**
 * A Postgres cluster in `dir` (created on first use, kept afterwards), listening on 127.0.0.1:`port`,
 * with the role and database n8n uses. `fast` turns off fsync (throw-away test clusters).
 */
async function startPostgres({ dir, port, fast = false }) {
	const bin = postgresBinDir();
	if (!bin) throw new Error('Postgres is not installed (Debian package postgresql)');
	// `dir` itself becomes the postgres user's; its parents must let that user through.
	if (!reachableByPostgres(path.dirname(dir)))
		throw new Error(
			`the postgres user cannot reach ${dir} (a parent folder is not searchable by others); set PAYOUTS_QUEUE_DIR to a folder under /tmp or /var/tmp`,
		);
	const owner = postgresOwner();
	const dataDir = path.join(dir, 'data');
	fs.mkdirSync(dir, { recursive: true });
	if (owner.uid !== undefined) fs.chownSync(dir, owner.uid, owner.gid);
	fs.chmodSync(dir, 0o700);
	const logFile = path.join(dir, 'postgres.log');
	if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
		execFileSync(
			path.join(bin, 'initdb'),
			[
				'-D',
				dataDir,
				'--auth=trust',
				'-U',
				'postgres',
				'--encoding=UTF8',
				'--locale=C',
				...(fast ? ['--no-sync'] : []),
			],
			{ ...owner, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
		);
	}
	const settings = [
		'-c',
		'listen_addresses=127.0.0.1',
		'-c',
		'max_connections=100',
		...(fast
			? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']
			: []),
	];
	if (owner.uid !== undefined && fs.existsSync(logFile))
		fs.chownSync(logFile, owner.uid, owner.gid);
	const child = spawnLogged(
		path.join(bin, 'postgres'),
		['-D', dataDir, '-p', String(port), '-k', dir, ...settings],
		logFile,
		{ ...owner, cwd: dir },
	);
	await waitUntil('Postgres', () => psql(bin, port, 'select 1') === '1', {
		child,
		logFile,
		timeoutSeconds: 60,
	});
	if (psql(bin, port, `select 1 from pg_roles where rolname = '${DATABASE.user}'`) !== '1')
		psql(bin, port, `create role ${DATABASE.user} login password '${DATABASE.password}'`);
	if (psql(bin, port, `select 1 from pg_database where datname = '${DATABASE.name}'`) !== '1')
		psql(bin, port, `create database ${DATABASE.name} owner ${DATABASE.user}`);
	// SIGINT is Postgres' "fast" shutdown: ends sessions, writes a checkpoint, exits.
	return {
		port,
		child,
		logFile,
		stop: () => stopChild(child, { signal: 'SIGINT', graceMs: 20000 }),
	};
}

function redisPing(port) {
	return new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		let answer = '';
		socket.setTimeout(1000, () => socket.destroy());
		socket.on('connect', () => socket.write('PING\r\n'));
		socket.on('data', (chunk) => {
			answer += chunk;
			if (answer.includes('\r\n')) socket.end();
		});
		socket.on('close', () => resolve(answer.startsWith('+PONG')));
		socket.on('error', () => resolve(false));
	});
}

/**
 * Redis commands over one connection (RESP, integer answers only): enough to read the job queue's
 * lengths without a client library. Resolves with the integers, in order.
 */
function redisIntegers(port, commands) {
	return new Promise((resolve, reject) => {
		const socket = net.connect(port, '127.0.0.1');
		let answer = '';
		socket.setTimeout(5000, () =>
			socket.destroy(new Error(`Redis on port ${port} did not answer within 5 s`)),
		);
		socket.on('connect', () =>
			socket.write(
				commands
					.map(
						(words) =>
							`*${words.length}\r\n${words.map((word) => `$${Buffer.byteLength(word)}\r\n${word}\r\n`).join('')}`,
					)
					.join(''),
			),
		);
		socket.on('data', (chunk) => {
			answer += chunk;
			// Complete lines only: an answer may arrive in pieces.
			const lines = answer.split('\r\n').slice(0, -1);
			if (lines.length < commands.length) return;
			socket.end();
			const bad = lines.find((line) => !line.startsWith(':'));
			if (bad) reject(new Error(`Redis answered ${bad}`));
			else resolve(lines.slice(0, commands.length).map((line) => Number(line.slice(1))));
		});
		socket.on('error', reject);
	});
}

/** Bull's own record of n8n's job queue ("jobs", prefix "bull"): jobs waiting for a worker, held by one, delayed, paused. */
async function queueJobCounts(stack) {
	const key = (list) => `bull:jobs:${list}`;
	const [waiting, active, delayed, paused] = await redisIntegers(stack.redis.port, [
		['LLEN', key('wait')],
		['LLEN', key('active')],
		['ZCARD', key('delayed')],
		['LLEN', key('paused')],
	]);
	return { waiting, active, delayed, paused };
}

/**
 * Stops every execution the queue-mode set-up has not finished and waits until nothing runs: n8n
 * lists no unfinished execution (harness/rest.js `stopRunningExecutions`), and Bull's queue holds no
 * job (a worker holds an execution's job until the execution has really ended, stopped or not; a
 * killed worker's job counts until n8n fails it as stalled, up to 90 s later, about 25 s with
 * quickStallRecovery). Call it before resetting the sandbox between tests that pay. `idle`: as for
 * stopRunningExecutions. Returns the executions stopped.
 */
async function settle(stack, { timeoutSeconds = 180, idle } = {}) {
	const stopped = await n8n.stopRunningExecutions(stack.rest, { timeoutSeconds });
	let counts;
	await n8n
		.waitFor(
			'the job queue to empty (every job finished by its worker)',
			async () => {
				counts = await queueJobCounts(stack);
				return counts.waiting + counts.active + counts.delayed + counts.paused === 0;
			},
			{ timeoutSeconds, intervalMs: 250 },
		)
		.catch((error) => {
			throw new Error(`${error.message}; Bull's queue: ${JSON.stringify(counts)}`);
		});
	if (idle)
		await n8n.waitFor('the service to see the stopped executions end', idle, {
			timeoutSeconds,
			intervalMs: 100,
		});
	return stopped;
}

/** Redis for n8n's job queue on 127.0.0.1:`port`, in memory only (the queue is transient; executions live in Postgres). */
async function startRedis({ dir, port }) {
	const bin = redisServerBin();
	if (!bin) throw new Error('Redis is not installed (Debian package redis-server)');
	fs.mkdirSync(dir, { recursive: true });
	const logFile = path.join(dir, 'redis.log');
	const child = spawnLogged(
		bin,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			dir,
			'--daemonize',
			'no',
		],
		logFile,
		{ cwd: dir },
	);
	await waitUntil('Redis', () => redisPing(port), { child, logFile, timeoutSeconds: 30 });
	return { port, child, logFile, stop: () => stopChild(child, { graceMs: 10000 }) };
}

/**
 * Bull's settings for a test stack that kills workers (`quickStallRecovery`): a job's lock lasts 20 s
 * and is renewed every 4 s, and the stalled-job check runs every 5 s, instead of n8n's 60 s, 10 s and
 * 30 s. A killed worker's jobs are then given up (failed by n8n, which never runs a job twice) 20 to
 * 25 s after the kill instead of 60 to 90: the time the kill tests wait for, and nothing they
 * prove. A live worker's job is given up only if its lock goes 16 s without being renewed.
 */
const QUICK_STALL_RECOVERY = {
	QUEUE_WORKER_LOCK_DURATION: '20000',
	QUEUE_WORKER_LOCK_RENEW_TIME: '4000',
	QUEUE_WORKER_STALLED_INTERVAL: '5000',
};

/**
 * What every queue-mode process needs on top of `n8n.n8nEnv` (which gives the one encryption key):
 * the shared Postgres, the shared Redis, queue mode, and manual runs offloaded to the workers.
 */
function queueEnv(env, { postgres, redis, quickStallRecovery = false }) {
	const result = {
		...env,
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_DATABASE: DATABASE.name,
		DB_POSTGRESDB_USER: DATABASE.user,
		DB_POSTGRESDB_PASSWORD: DATABASE.password,
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
		...(quickStallRecovery ? QUICK_STALL_RECOVERY : {}),
	};
	delete result.DB_SQLITE_POOL_SIZE;
	return result;
}

/**
 * `n8n worker`, ready once its health check answers /healthz/readiness: connected to the
 * database and Redis (n8n 2.x: and taking jobs from the queue).
 */
async function startWorker(
	env,
	logFile,
	{ healthPort, concurrency = 5, timeoutSeconds = 180 } = {},
) {
	const workerEnv = {
		...env,
		QUEUE_HEALTH_CHECK_ACTIVE: 'true',
		QUEUE_HEALTH_CHECK_PORT: String(healthPort),
		N8N_WORKER_SERVER_PORT: String(healthPort),
	};
	// A worker started again (after a kill) keeps its earlier log: what it did before is the evidence.
	if (fs.existsSync(logFile)) fs.appendFileSync(logFile, '\n--- n8n worker started again ---\n');
	const child = spawnLogged(n8n.N8N_BIN, ['worker', `--concurrency=${concurrency}`], logFile, {
		env: workerEnv,
	});
	await waitUntil(
		`n8n worker (${path.basename(logFile)})`,
		async () => (await fetch(`http://127.0.0.1:${healthPort}/healthz/readiness`)).ok,
		{ child, logFile, timeoutSeconds },
	);
	return {
		child,
		logFile,
		healthPort,
		stop: () => stopChild(child, { graceMs: 35000 }),
		kill: () => child.kill('SIGKILL'),
	};
}

/** The production webhooks of the workflows in `publish`: [{ path, method }]. */
function publishedWebhooks(workflows, publish) {
	return workflows
		.filter((workflow) => publish.includes(workflow.id))
		.flatMap((workflow) =>
			workflow.nodes.filter((node) => node.type === 'n8n-nodes-base.webhook' && !node.disabled),
		)
		.map((node) => ({
			path: node.parameters?.path || node.webhookId,
			method: node.parameters?.httpMethod ?? 'GET',
		}));
}

/**
 * Starts the whole queue-mode set-up in `baseDir`: Postgres, Redis, the package installed into
 * the main's user folder and copied into each worker's, the credential, `workflows` (default: the
 * examples, once), `publish` (workflow ids made active, before the main starts), the main with its
 * owner account (ready once its REST routes and the published workflows' webhooks answer), then the
 * workers (`workerConcurrency` executions at once each, each ready once it takes jobs;
 * `workerDatabasePort(index, postgresPort)` gives a worker another port for n8n's database;
 * `quickStallRecovery`: a killed worker's jobs given up within about 25 s, QUICK_STALL_RECOVERY). Returns
 * handles (`main`, `cookie`, `rest`: a REST client of the main, `workers`, `postgres`, `redis`),
 * `startMain()`, `startWorker(index)`, and `stop()`, which stops all of it.
 */
async function startQueueStack({
	baseDir,
	sandbox,
	seed,
	ports = {},
	workers = 2,
	workerConcurrency = 5,
	workflows,
	publish = [],
	reuse = false,
	fast = false,
	quickStallRecovery = false,
	workerDatabasePort,
	onStep = () => {},
}) {
	const started = [];
	const stack = {
		baseDir,
		workers: [],
		stop: async () => {
			for (const part of started.reverse()) await part.stop().catch(() => {});
		},
	};
	try {
		// Under jest, one queue-mode set-up at a time on the machine: two of them (each a main,
		// workers, Postgres and Redis) overload two cores, and the suites' waits then time the load.
		if (process.env.JEST_WORKER_ID) {
			const release = await n8n.takeLock(
				path.join(os.tmpdir(), 'n8n-nodes-payouts-queue-suite.lock'),
				'running a queue-mode suite (one at a time)',
			);
			started.push({ stop: async () => release() });
		}
		ensureQueueTools();
		await n8n.ensureRuntime();
		fs.mkdirSync(baseDir, { recursive: true });
		if (isRoot()) fs.chmodSync(baseDir, 0o755);
		onStep('Postgres and Redis');
		const [postgresPort, redisPort] = [
			await n8n.freePort(ports.postgres ?? 0),
			await n8n.freePort(ports.redis ?? 0),
		];
		stack.postgres = await startPostgres({
			dir: path.join(baseDir, 'postgres'),
			port: postgresPort,
			fast,
		});
		started.push(stack.postgres);
		stack.redis = await startRedis({ dir: path.join(baseDir, 'redis'), port: redisPort });
		started.push(stack.redis);

		onStep("the package in each process's user folder");
		const folder = (name) => path.join(baseDir, name);
		const mainFolder = folder('main');
		fs.mkdirSync(mainFolder, { recursive: true });
		const { reused } = await n8n.installPackage(mainFolder, { reuse });
		stack.packageReused = reused;
		const workerNames = Array.from({ length: workers }, (_, index) => `worker-${index + 1}`);
		for (const name of workerNames) {
			// The same installed files in each worker's user folder (what a container image would hold).
			const nodesDir = path.join(folder(name), '.n8n', 'nodes');
			fs.rmSync(nodesDir, { recursive: true, force: true });
			fs.cpSync(path.join(mainFolder, '.n8n', 'nodes'), nodesDir, { recursive: true });
		}

		const base = { postgres: stack.postgres, redis: stack.redis, quickStallRecovery };
		const mainPort = await n8n.freePort(ports.main ?? 0);
		stack.mainEnv = queueEnv(
			n8n.n8nEnv(mainFolder, {
				port: mainPort,
				brokerPort: await n8n.freePort(ports.mainBroker ?? 0),
			}),
			base,
		);
		onStep('credential and workflows (migrations on a new database)');
		await n8n.importCredential(mainFolder, stack.mainEnv, sandbox, seed, { reuse });
		// The queue-mode template's claims table and its credential (docs/queue-claims.md), the
		// credential once per user folder, so that a user's change to it survives the next start.
		createClaimsTable(stack.postgres.port);
		const claimsMarker = path.join(mainFolder, '.claims-credential-imported');
		if (!reuse || !fs.existsSync(claimsMarker)) {
			await n8n.importCredentials(mainFolder, stack.mainEnv, [
				claimsCredential(stack.postgres.port),
			]);
			fs.writeFileSync(claimsMarker, CLAIMS_CREDENTIAL.id);
		}
		if (workflows) await n8n.importWorkflows(mainFolder, stack.mainEnv, workflows);
		else
			stack.examplesImported = (
				await n8n.importExamplesOnce(mainFolder, stack.mainEnv)
			).imported.length;
		for (const id of publish) {
			const result = await n8n.n8nCli(['publish:workflow', `--id=${id}`], stack.mainEnv);
			if (result.code !== 0 || /error/i.test(result.stderr))
				throw new Error(`publishing workflow ${id} failed:\n${result.stdout}${result.stderr}`);
		}

		onStep('n8n main');
		stack.mainLogs = [];
		stack.webhooks = publishedWebhooks(workflows ?? n8n.exampleWorkflows(), publish);
		stack.startMain = async () => {
			const logFile = path.join(baseDir, `main-${stack.mainLogs.length + 1}.log`);
			stack.mainLogs.push(logFile);
			// Returns once the owner's session and the REST routes the demo and the tests use answer.
			const server = await n8n.startServer(stack.mainEnv, logFile);
			stack.main = server;
			stack.cookie = server.cookie;
			stack.rest = await n8n.restClient(server.url, { cookie: server.cookie });
			// The published workflows' webhooks are registered after the REST API answers (a
			// restarted main too): a request before that is answered 404 "not registered".
			for (const webhook of stack.webhooks)
				await n8n.waitForWebhook(server.url, webhook.path, {
					method: webhook.method,
					child: server.child,
				});
			return server;
		};
		// Stopped by stack.stop() even when it is not ready in time.
		started.push({ stop: () => stack.main?.stop() ?? Promise.resolve() });
		await stack.startMain();

		onStep(`${workers} n8n workers`);
		stack.workerEnv = [];
		stack.startWorker = async (index) => {
			const name = workerNames[index];
			const env = queueEnv(
				n8n.n8nEnv(folder(name), {
					port: await n8n.freePort(0),
					brokerPort: await n8n.freePort(0),
				}),
				base,
			);
			// A test may put something between a worker and n8n's database (a delaying proxy).
			const databasePort = workerDatabasePort?.(index, stack.postgres.port);
			if (databasePort) {
				env.DB_POSTGRESDB_PORT = String(databasePort);
				// Slow calls: a pool as wide as the worker's executions, so that they wait on the database and
				// not on each other (n8n's pool of 2 gives up connecting after 20 s: the execution fails).
				env.DB_POSTGRESDB_POOL_SIZE = String(Math.max(2, workerConcurrency));
			}
			const worker = await startWorker(env, path.join(baseDir, `${name}.log`), {
				healthPort: await n8n.freePort(ports.workers?.[index] ?? 0),
				concurrency: workerConcurrency,
			});
			worker.name = name;
			stack.workers[index] = worker;
			return worker;
		};
		await Promise.all(workerNames.map((_, index) => stack.startWorker(index)));
		// Stopped before the main (started is reversed): a worker finishes its jobs, then the main goes.
		started.push({ stop: () => Promise.all(stack.workers.map((worker) => worker.stop())) });
		return stack;
	} catch (error) {
		await stack.stop();
		throw error;
	}
}

/** Which worker ran an execution: the one whose log says "Worker started execution <id>". */
function workerOfExecution(stack, executionId) {
	const pattern = new RegExp(`Worker started execution ${executionId} \\(`);
	return stack.workers
		.filter((worker) => pattern.test(fs.readFileSync(worker.logFile, 'utf8')))
		.map((worker) => worker.name);
}

/** The queue demo's state folder: .cache/queue here, unless the postgres user cannot reach it (a checkout under /root). */
function defaultQueueDir() {
	const inCheckout = path.join(n8n.ROOT, '.cache', 'queue');
	if (reachableByPostgres(inCheckout)) return inCheckout;
	return path.join(
		os.tmpdir(),
		`n8n-nodes-payouts-queue-${require('node:crypto').createHash('sha256').update(n8n.ROOT).digest('hex').slice(0, 8)}`,
	);
}

let shutdown = async (code) => process.exit(code);

async function main() {
	const { startSandbox, seed } = require('../sandbox');
	const started = Date.now();
	let stack;
	let sandbox;
	let stopping = false;
	const stop = (shutdown = async (code = 0) => {
		if (stopping) return;
		stopping = true;
		n8n.log('Stopping the workers, the main, Redis, Postgres and the sandbox…');
		await stack?.stop();
		await sandbox?.close();
		n8n.log('Stopped.');
		process.exit(code);
	});
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(0));
	// Never leave processes behind, even on an unclean exit of this one.
	process.on('exit', () => {
		for (const child of [
			stack?.main?.child,
			...(stack?.workers ?? []).map((worker) => worker.child),
			stack?.redis?.child,
			stack?.postgres?.child,
		])
			child?.kill('SIGKILL');
	});
	if (process.env.npm_lifecycle_event === 'start:queue') {
		const parent = process.ppid;
		setInterval(() => {
			if (process.ppid !== parent) stop(0);
		}, 1000).unref();
	}
	const baseDir = path.resolve(process.env.PAYOUTS_QUEUE_DIR ?? defaultQueueDir());
	const env = (name, fallback) => Number(process.env[name] ?? fallback);
	sandbox = await startSandbox({
		port: await n8n.freePort(env('PAYOUTS_SANDBOX_PORT', 5680)),
		host: '127.0.0.1',
		httpStyle: 'mirror',
	});
	stack = await startQueueStack({
		baseDir,
		sandbox,
		seed,
		reuse: true,
		ports: {
			main: env('N8N_PORT', 5678),
			postgres: env('PAYOUTS_POSTGRES_PORT', 5433),
			redis: env('PAYOUTS_REDIS_PORT', 6380),
			workers: (process.env.PAYOUTS_WORKER_PORTS ?? '5691,5692').split(',').map(Number),
		},
		onStep: (step) => n8n.log(`Starting ${step}…`),
	});
	for (const child of [
		stack.main.child,
		...stack.workers.map((worker) => worker.child),
		stack.redis.child,
		stack.postgres.child,
	]) {
		child.on('exit', (code, signal) => {
			if (!stopping) {
				n8n.log(
					`A process of the queue set-up stopped unexpectedly (pid ${child.pid}, ${code ?? signal}); logs are in ${baseDir}`,
				);
				stop(1);
			}
		});
	}
	console.log(`
n8n ${n8n.N8N_VERSION} is running in queue mode with n8n-nodes-payouts, against the local payouts sandbox (up in ${((Date.now() - started) / 1000).toFixed(1)} s).

  Editor:    ${stack.main.url}
  Login:     ${n8n.OWNER.email} / ${n8n.OWNER.password}
  Sandbox:   ${sandbox.baseUrl}  (credential "Payouts Sandbox"; what it received: ${sandbox.baseUrl}/__sandbox/requests)
  Processes: main (pid ${stack.main.child.pid}), ${stack.workers.map((worker) => `${worker.name} (pid ${worker.child.pid}, http://127.0.0.1:${worker.healthPort}/healthz/readiness)`).join(', ')}
  Postgres:  127.0.0.1:${stack.postgres.port} (database ${DATABASE.name}), Redis: 127.0.0.1:${stack.redis.port}
  Logs:      ${baseDir}/{main-1,worker-1,worker-2}.log ("Worker started execution <id>" says which worker ran what)

Every execution, the editor's "Execute workflow" included, runs on a worker. Press Ctrl-C to stop everything.`);
}

if (require.main === module) {
	main().catch((error) => {
		console.error(`[n8n-nodes-payouts] npm run start:queue failed: ${error.message}`);
		shutdown(1);
	});
}

module.exports = {
	CLAIMS_CREDENTIAL,
	CLAIMS_SQL,
	claimsCredential,
	DATABASE,
	missingQueueTools,
	ensureQueueTools,
	startPostgres,
	startRedis,
	queueEnv,
	startWorker,
	startQueueStack,
	workerOfExecution,
	queueJobCounts,
	settle,
	stopChild,
};
