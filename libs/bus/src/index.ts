export * from './port';
export * from './open-bus';
export * from './new-message';
export { AmqpBus, type AmqpBusOptions } from './amqp/amqp-bus';
export { InProcessBus, type InProcessBusOptions } from './in-process/in-process-bus';
export { DELAY_TIERS, type DelayTier } from './amqp/delay-tiers';
export { topologyNames, deleteBusTopology, deadQueueName, type TopologyNames } from './amqp/topology';
