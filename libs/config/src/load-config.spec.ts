import { redactConfig, redactCredentials } from './load-config';

describe('redactCredentials', () => {
  it.each([
    ['redis://:s3cret@redis:6379', 'redis://[redacted]@redis:6379'],
    ['rediss://default:s3cret@redis.example.com:6380/0', 'rediss://default:[redacted]@redis.example.com:6380/0'],
    ['redis://s3cret@redis:6379', 'redis://[redacted]@redis:6379'],
    ['amqp://crm:s3cret@rabbitmq:5672/%2F', 'amqp://crm:[redacted]@rabbitmq:5672/%2F'],
    ['mongodb://crm:p@ss:w0rd@m1:27017,m2:27017/crm?authSource=admin', 'mongodb://crm:[redacted]@m1:27017,m2:27017/crm?authSource=admin'],
    ['mongodb+srv://crm:s3cret@cluster0.example.net/crm', 'mongodb+srv://crm:[redacted]@cluster0.example.net/crm'],
    ['smtp://mailer:s3cret@smtp.example.com:587', 'smtp://mailer:[redacted]@smtp.example.com:587'],
    ['https://ghp_s3cret@example.com/hook', 'https://[redacted]@example.com/hook'],
    ['https://api.example.com/v1?api_key=s3cret&region=eu', 'https://api.example.com/v1?api_key=[redacted]&region=eu'],
    ['mongodb://m1/crm?authSource=admin&password=s3cret', 'mongodb://m1/crm?authSource=admin&password=[redacted]'],
    ['redis://:s3cret@a:6379,redis://:0ther@b:6379', 'redis://[redacted]@a:6379,redis://[redacted]@b:6379'],
  ])('masks the credential in %s', (input, expected) => {
    expect(redactCredentials(input)).toBe(expected);
  });

  it.each(['redis://redis:6379', 'https://crm.example.com/api?email=ada@example.com', '127.0.0.1:50051', 'info'])(
    'leaves %s as it is',
    (input) => {
      expect(redactCredentials(input)).toBe(input);
    },
  );
});

describe('redactConfig', () => {
  it('hides secret-named values and masks credentials inside every other string', () => {
    const printed = redactConfig({
      REDIS_URL: 'redis://:s3cret@redis:6379',
      IMPORT_UPLOAD_SECRET: 'abcdefghijklmnop',
      SMTP_PASS: 'hunter2',
      AI_API_KEY: 'sk-1',
      CRM_PORT: 8443,
      LOG_LEVEL: 'info',
    });
    expect(printed).toEqual({
      REDIS_URL: 'redis://[redacted]@redis:6379',
      IMPORT_UPLOAD_SECRET: '[redacted]',
      SMTP_PASS: '[redacted]',
      AI_API_KEY: '[redacted]',
      CRM_PORT: 8443,
      LOG_LEVEL: 'info',
    });
    expect(JSON.stringify(printed)).not.toMatch(/s3cret|hunter2|sk-1|abcdefghijklmnop/);
  });
});
