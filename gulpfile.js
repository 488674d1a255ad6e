// Copies what tsc does not: node icons (SVG) and codex files (*.node.json) next to the compiled nodes.
const { src, dest } = require('gulp');

function buildAssets() {
  return src(['nodes/**/*.{svg,png,json}', 'credentials/**/*.{svg,png}'], { base: '.', encoding: false }).pipe(dest('dist'));
}

exports['build:assets'] = buildAssets;
