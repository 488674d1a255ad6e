/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, timers, files and the environment); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * The Docs link of every node works: n8n appends its tracking query (?utm_source=...) to a codex
 * documentation URL, which breaks a README anchor (the query lands after the #). So each node
 * points at a page of its own under docs/nodes/, and the README sections those pages link to exist.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');
const REPOSITORY = 'https://github.com/n8n-nodes-payouts/n8n-nodes-payouts/blob/main/';

const codexFiles = readdirSync(path.join(root, 'nodes')).flatMap((folder) =>
	readdirSync(path.join(root, 'nodes', folder))
		.filter((file) => file.endsWith('.node.json'))
		.map((file) => path.join(root, 'nodes', folder, file)),
);

/** GitHub's anchor of a Markdown heading. */
const slug = (heading: string) =>
	heading
		.toLowerCase()
		.replace(/[^\p{L}\p{N} -]/gu, '')
		.replace(/ /g, '-');
const readmeAnchors = new Set(
	readFileSync(path.join(root, 'README.md'), 'utf8')
		.split('\n')
		.filter((line) => /^#{1,6} /.test(line))
		.map((line) => slug(line.replace(/^#+ /, ''))),
);

test('every node has a codex file', () => {
	expect(codexFiles).toHaveLength(6);
});

test.each(codexFiles.map((file) => [path.basename(file), file]))("%s: the Docs link is a page of this repository, without a '#'", (_name, file) => {
	const codex = JSON.parse(readFileSync(file, 'utf8')) as { resources: { primaryDocumentation: Array<{ url: string }> } };
	const [{ url }] = codex.resources.primaryDocumentation;
	expect(url).not.toContain('#');
	// What n8n opens: the URL with its query appended, which a plain page ignores.
	const opened = new URL(`${url}?utm_source=n8n_app&utm_medium=node_settings_modal-credential_link`);
	expect(opened.hash).toBe('');
	expect(url.startsWith(`${REPOSITORY}docs/nodes/`)).toBe(true);
	const page = path.join(root, url.slice(REPOSITORY.length));
	expect(existsSync(page)).toBe(true);
	for (const [, anchor] of readFileSync(page, 'utf8').matchAll(/README\.md#([^)\s]+)/g)) expect(readmeAnchors).toContain(anchor);
});
