export * from './port';
export * from './open-bus';
export * from './new-message';
export * from './retry-policy';
export { AmqpBus, type AmqpBusOptions } from './amqp/amqp-bus';
export { InProcessBus, type InProcessBusOptions } from './in-process/in-process-bus';
