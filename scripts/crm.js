#!/usr/bin/env node
// `npm run crm -- <command>`: the operator CLI, which talks to the running auth service over gRPC.
'use strict';
require('../services/auth/dist/cli.js');
