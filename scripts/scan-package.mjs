// Runs n8n's own community-package scanner (the checks n8n applies before it lists a package)
// on this package twice: on its TypeScript sources, and on the tarball that `npm pack` makes,
// unpacked as n8n would receive it. Exits non-zero on any finding.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { analyzePackage } from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(path.join(tmpdir(), 'payouts-scan-'));
try {
	execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'ignore' });
	const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], {
		cwd: root,
		encoding: 'utf8',
	})
		.trim()
		.split('\n')
		.pop();
	execFileSync('tar', ['-xzf', path.join(work, tarball), '-C', work]);
	const targets = [
		{
			name: 'sources',
			dir: root,
			patterns: ['nodes/**/*.ts', 'credentials/**/*.ts', 'package.json'],
		},
		{ name: 'packed package', dir: path.join(work, 'package'), patterns: undefined },
	];
	let failed = false;
	for (const { name, dir, patterns } of targets) {
		const result = await analyzePackage(dir, patterns);
		console.log(
			`${result.passed ? 'passed' : 'FAILED'}: scan of the ${name}${result.message ? ` (${result.message})` : ''}`,
		);
		if (!result.passed) {
			failed = true;
			console.log(result.details ?? '');
		}
	}
	process.exitCode = failed ? 1 : 0;
} finally {
	rmSync(work, { recursive: true, force: true });
}
