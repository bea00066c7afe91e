import mongoose, { Schema } from 'mongoose';
import { bounded, isUnavailable, mongoConnectionOptions, OPERATION_TIME_LIMIT_MS } from './mongo-limits';

describe('what bounds every MongoDB connection and operation', () => {
  it('writes with a journaled majority (a write acknowledged before a failover survives it) and reads the majority', () => {
    const options = mongoConnectionOptions('crm_records');
    expect(options).toMatchObject({
      dbName: 'crm_records',
      writeConcern: { w: 'majority', journal: true },
      readConcern: { level: 'majority' },
      retryWrites: true,
    });
    expect(options.socketTimeoutMS).toBeGreaterThan(OPERATION_TIME_LIMIT_MS);
  });

  it('sets a server-side time limit on every kind of query the adapter issues', () => {
    // An unopened connection: queries are built, never sent.
    const connection = mongoose.createConnection();
    const model = connection.model('limits_probe', new Schema({ _id: String }, { autoIndex: false, autoCreate: false }));
    const queries = [
      bounded(model.find({}).sort({ _id: 1 })),
      bounded(model.findOne({}).lean()),
      bounded(model.countDocuments({})),
      bounded(model.findOneAndUpdate({}, { $set: { a: 1 } })),
      bounded(model.updateMany({}, { $set: { a: 1 } })),
      bounded(model.deleteMany({})),
    ];
    for (const query of queries) expect(query.getOptions().maxTimeMS).toBe(OPERATION_TIME_LIMIT_MS);
  });

  it('reads failovers, stepdowns, lost primaries and time limits as unavailable (503, retry), and nothing else', () => {
    const server = (code: number, codeName: string) => Object.assign(new Error(codeName), { name: 'MongoServerError', code, codeName });
    for (const [code, name] of [
      [10107, 'NotWritablePrimary'],
      [189, 'PrimarySteppedDown'],
      [11602, 'InterruptedDueToReplStateChange'],
      [91, 'ShutdownInProgress'],
      [50, 'MaxTimeMSExpired'],
    ] as const)
      expect([name, isUnavailable(server(code, name))]).toEqual([name, true]);
    expect(
      isUnavailable(Object.assign(new Error('x'), { name: 'MongoServerError', code: 112, errorLabels: ['TransientTransactionError'] })),
    ).toBe(true);
    expect(isUnavailable(Object.assign(new Error('connect ECONNREFUSED'), { name: 'MongoServerSelectionError' }))).toBe(true);
    expect(isUnavailable(server(11000, 'DuplicateKey'))).toBe(false);
    expect(isUnavailable(server(2, 'BadValue'))).toBe(false);
  });
});
