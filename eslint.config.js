'use strict';
// ESLint (flat config) over the JavaScript that ships or runs the project: lib/, scripts/,
// bench/, examples/ and the entry points. `npm test` runs it (`npm run lint`).
const js = require('@eslint/js');
const globals = require('globals');

module.exports = [
  js.configs.recommended,
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'commonjs', globals: { ...globals.node } },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: { ...globals.node } },
  },
  {
    rules: {
      // Unused arguments name tfjs's signatures; unused caught errors are deliberate.
      'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none' }],
    },
  },
];
