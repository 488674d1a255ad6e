'use strict';
/**
 * Which Node runs a pinned n8n (harness/runtime.js `runtimeFor`): the machine's own when n8n accepts
 * it, else the version pinned in harness/n8n-runtime/versions.json from the npm registry package built
 * for this platform (`node-<platform>-<arch>`: the binary and its headers, no install script).
 * Pure, so test/package/runtime.test.ts can cover every platform on any machine.
 */

/** Where the registry has Node packages (`node-<platform>-<arch>`): `<process.platform>-<process.arch>`. */
const REGISTRY_PLATFORMS = ['linux-x64', 'linux-arm64', 'darwin-arm64', 'darwin-x64'];

/** Platforms where these scripts do not run at all (POSIX paths, shell, `sh -c`), with what to do instead. */
const UNSUPPORTED_PLATFORMS = {
	win32:
		'Windows is not supported directly: run `npm start` and `npm test` inside WSL (Windows Subsystem for Linux, e.g. Ubuntu), where they work as on Linux.',
};

/** The parts of '24.21.0', 'v24.21', '24.x' or '24': numbers, undefined for a wildcard or a missing part. */
function versionParts(text) {
	const match = /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:[-+].*)?$/.exec(text);
	if (!match) return undefined;
	const parts = match
		.slice(1, 4)
		.map((part) => (part === undefined || /^[xX*]$/.test(part) ? undefined : Number(part)));
	// A part after a wildcard is a wildcard too (24.x.3 reads as 24.x).
	const firstWildcard = parts.indexOf(undefined);
	return firstWildcard < 0
		? parts
		: parts.map((part, index) => (index < firstWildcard ? part : undefined));
}

const compare = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
/** The lowest version a partial one names (24.x → 24.0.0). */
const lowest = (parts) => parts.map((part) => part ?? 0);
/** The first version above every one a partial one names (24.x → 25.0.0, 22.22 → 22.23.0, 24.1.2 → 24.1.3). */
function above(parts) {
	const last = parts.filter((part) => part !== undefined).length - 1;
	return parts.map((part, index) => (index < last ? part : index === last ? part + 1 : 0));
}

/** One comparator ('>=20.19', '<=24.x', '^22.1.0', '~22.1', '24') as bounds [op, version] with op '>=' or '<'. */
function comparatorBounds(comparator) {
	const [, op, version] = /^(>=|<=|>|<|=|\^|~)?(.*)$/.exec(comparator);
	const parts = versionParts(version);
	if (!parts) throw new Error(`cannot read the Node version range part "${comparator}"`);
	if (parts[0] === undefined) return op === '<' || op === '>' ? [['<', [0, 0, 0]]] : [];
	const low = lowest(parts);
	const caretTop =
		low[0] > 0 || parts[1] === undefined
			? [low[0] + 1, 0, 0]
			: low[1] > 0 || parts[2] === undefined
				? [0, low[1] + 1, 0]
				: [0, 0, low[2] + 1];
	const tildeTop = parts[1] === undefined ? [low[0] + 1, 0, 0] : [low[0], low[1] + 1, 0];
	const bounds = {
		'>=': [['>=', low]],
		'>': [['>=', above(parts)]],
		'<': [['<', low]],
		'<=': [['<', above(parts)]],
		'^': [
			['>=', low],
			['<', caretTop],
		],
		'~': [
			['>=', low],
			['<', tildeTop],
		],
		'=': [
			['>=', low],
			['<', above(parts)],
		],
	};
	return bounds[op ?? '='];
}

/**
 * Does Node `version` (e.g. '24.21.0' or process.version) satisfy the npm range `range` (as in a
 * package's engines.node: '>=24.0.0', '>=20.19 <= 24.x', '^22 || ^24', '20 - 22')? Throws on a
 * range it cannot read, rather than guess.
 */
function satisfies(version, range) {
	const parts = versionParts(version);
	if (!parts || parts.includes(undefined)) throw new Error(`"${version}" is not a Node version`);
	return range.split('||').some((set) => {
		const hyphen = /^\s*(\S+)\s+-\s+(\S+)\s*$/.exec(set);
		const comparators = hyphen
			? [`>=${hyphen[1]}`, `<=${hyphen[2]}`]
			: set
					.trim()
					.replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
					.split(/\s+/)
					.filter(Boolean);
		return comparators
			.flatMap(comparatorBounds)
			.every(([op, bound]) =>
				op === '>=' ? compare(parts, bound) >= 0 : compare(parts, bound) < 0,
			);
	});
}

/** 'n8n >=20.19 <= 24.x, isolated-vm >=22.0.0' */
const describeRanges = (acceptedRanges) =>
	Object.entries(acceptedRanges)
		.map(([name, range]) => `${name} ${range}`)
		.join(', ');

/**
 * The Node to run n8n `n8nVersion` on, from:
 * - `platform`, `arch`: process.platform, process.arch;
 * - `machineNode`: the machine's Node version (process.versions.node);
 * - `pinnedNode`: the Node that versions.json pins for this n8n, `platformPins` its exceptions
 *   (`{ 'darwin-x64': '24.18.1' }`: the registry lacks the pin there; null: it has no Node n8n
 *   accepts there);
 * - `acceptedRanges`: the engines.node of n8n and of the native modules built for it
 *   (`{ n8n: '>=24.0.0', 'isolated-vm': '>=24.0.0' }`): a Node must satisfy every one;
 * - `pinnedOnly`: use the machine's Node only when it is exactly the pin (reproducible matrix runs).
 * Returns `{ use: 'machine', version }`, `{ use: 'registry', package, version }` or `{ error }`.
 */
function chooseNode({
	platform,
	arch,
	machineNode,
	n8nVersion,
	pinnedNode,
	platformPins = {},
	acceptedRanges,
	pinnedOnly = false,
}) {
	if (UNSUPPORTED_PLATFORMS[platform]) return { error: UNSUPPORTED_PLATFORMS[platform] };
	const target = `${platform}-${arch}`;
	const pin =
		REGISTRY_PLATFORMS.includes(target) && target in platformPins
			? platformPins[target]
			: pinnedNode;
	const accepted =
		machineNode !== undefined &&
		Object.values(acceptedRanges).every((range) => satisfies(machineNode, range));
	const fallback = pin ?? pinnedNode;
	if (machineNode === pinnedNode || machineNode === pin || (accepted && !pinnedOnly))
		return { use: 'machine', version: machineNode };
	const wanted = pinnedOnly
		? `exactly Node ${fallback} (PAYOUTS_NODE=pinned)`
		: `a Node that satisfies ${describeRanges(acceptedRanges)}`;
	const why = `n8n ${n8nVersion} needs ${wanted}; this machine's is ${machineNode}`;
	const instead = `Install such a Node (e.g. \`nvm install ${pinnedOnly ? fallback : fallback.split('.')[0]}\`) and run again with it first on PATH: it is used as it is.`;
	if (!REGISTRY_PLATFORMS.includes(target)) {
		return {
			error: `${why}, and the npm registry has Node packages for ${REGISTRY_PLATFORMS.join(', ')} only, not ${target}. ${instead}`,
		};
	}
	if (pin === null)
		return {
			error: `${why}, and the npm registry has no node-${target} that n8n ${n8nVersion} accepts. ${instead}`,
		};
	return { use: 'registry', package: `node-${target}`, version: pin };
}

module.exports = {
	REGISTRY_PLATFORMS,
	UNSUPPORTED_PLATFORMS,
	satisfies,
	describeRanges,
	chooseNode,
};
