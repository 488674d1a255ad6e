'use strict';
/**
 * How many suites `npm test` runs at a time (jest.config.js), and what the sequencer plans for
 * (sequencer.js): three, also on two cores. Most of an end-to-end suite is waiting for n8n (a
 * trigger's poll a minute away, a restart, a killed worker's job), which a third suite's work
 * fills: on 2 cores three at a time took 734 s where two took about 860 (docs/testing.md).
 */
module.exports = { WORKERS: 3 };
