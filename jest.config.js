// Three projects: `unit` runs the *.spec.ts files beside the code against their TypeScript sources;
// `cross` runs tests/ against the built processes, started as a local cluster over HTTPS;
// `containers` runs tests/containers/ against the system started from its images (npm run test:containers).
const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }];
const libs = ['config', 'observability', 'telemetry', 'grpc', 'store', 'bus', 'rate-limit', 'vocabulary'];
const moduleNameMapper = Object.fromEntries(libs.map((l) => [`^@crm/${l}$`, `<rootDir>/libs/${l}/src`]));

module.exports = {
  // Cross-service tests poll a real cluster; a global option (jest ignores it per project).
  testTimeout: 60000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform: { '^.+\\.ts$': swc },
      moduleNameMapper,
      testMatch: [
        '<rootDir>/libs/*/src/**/*.spec.ts',
        '<rootDir>/services/*/src/**/*.spec.ts',
        '<rootDir>/gateway/src/**/*.spec.ts',
        '<rootDir>/clients/*/src/**/*.spec.ts',
        // The cross suites' own helpers (no cluster needed).
        '<rootDir>/tests/support/**/*.spec.ts',
      ],
    },
    {
      displayName: 'cross',
      testEnvironment: 'node',
      transform: { '^.+\\.ts$': swc },
      moduleNameMapper,
      testMatch: ['<rootDir>/tests/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/tests/containers/'],
      // Every answer a suite receives is checked against the OpenAPI document the gateway serves.
      setupFilesAfterEnv: ['<rootDir>/tests/support/openapi-conformance.setup.ts'],
      slowTestThreshold: 30,
    },
    {
      displayName: 'containers',
      testEnvironment: 'node',
      transform: { '^.+\\.ts$': swc },
      moduleNameMapper,
      testMatch: ['<rootDir>/tests/containers/**/*.test.ts'],
      slowTestThreshold: 60,
    },
  ],
};
