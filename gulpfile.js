// Copies what tsc does not: node icons (SVG) and codex files (*.node.json) next to the compiled nodes.
const { src, dest } = require('gulp');

function buildAssets() {
	return src(['nodes/**/*.{svg,png,json}', 'credentials/**/*.{svg,png}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

// A build starts from an empty dist/: a file moved in nodes/ must not leave its old copy in the package.
function clean(done) {
	require('fs').rmSync('dist', { recursive: true, force: true });
	done();
}

exports['build:assets'] = buildAssets;
exports.clean = clean;
