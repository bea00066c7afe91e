#!/usr/bin/env node
// `npm run crm -- <command>`: the operator CLI. Most commands talk to the running auth service over
// gRPC; `dead-letters` talks to RabbitMQ, where dead letters live.
'use strict';
const args = process.argv.slice(2);
if (args[0] === 'dead-letters') require('../libs/bus/dist/operator/dead-letters-command.js').main(args.slice(1));
else require('../services/auth/dist/cli.js').main(args);
