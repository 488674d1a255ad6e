/**
 * Imported first by the simulator's command line: the n8n engine it runs is the devDependencies'
 * (the default n8n's), or the n8n `N8N_ENGINE_FROM` points at (test/helpers/engineFrom.js).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('../helpers/engineFrom.js').redirect();
