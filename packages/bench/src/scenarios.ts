/**
 * The bench's scenarios, one import line per file, run in this order. A file registers its
 * scenarios with `registerScenario` from `runner.ts` (see there for what a scenario gets).
 */
import './core-scenarios.js';
import './hook-scenarios.js';
import './hook-s3-scenarios.js';
import './shell-scenarios.js';
import './state-scenarios.js';
import './large-scenarios.js';
import './timeline-scenarios.js';
