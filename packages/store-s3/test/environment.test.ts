import { describe, expect, it } from 'vitest';
import { s3StoreOptionsFromEnvironment } from '../src/index.js';

const location = { bucket: 'b', prefix: 'team/project' };

describe('s3StoreOptionsFromEnvironment', () => {
  it('leaves AWS S3 to the SDK chain: virtual-host addressing, no region override', () => {
    expect(s3StoreOptionsFromEnvironment(location, { AWS_REGION: 'eu-west-1' })).toEqual({
      bucket: 'b',
      prefix: 'team/project',
      forcePathStyle: false,
      clientConfig: {},
      signedRequests: true,
    });
  });

  it('uses path-style addressing and region us-east-1 for a custom endpoint without a region', () => {
    expect(s3StoreOptionsFromEnvironment(location, { AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000' })).toEqual({
      bucket: 'b',
      prefix: 'team/project',
      forcePathStyle: true,
      clientConfig: { region: 'us-east-1' },
      signedRequests: true,
    });
    expect(s3StoreOptionsFromEnvironment(location, { AWS_ENDPOINT_URL: 'https://acct.r2.cloudflarestorage.com', AWS_REGION: 'auto' })).toMatchObject({
      forcePathStyle: true,
      clientConfig: {},
    });
  });

  it('sends every request through the SDK with FH_S3_CLIENT=sdk', () => {
    expect(s3StoreOptionsFromEnvironment(location, { AWS_REGION: 'eu-west-1', FH_S3_CLIENT: 'sdk' }).signedRequests).toBe(false);
  });

  it('lets FH_S3_FORCE_PATH_STYLE override the addressing choice', () => {
    expect(s3StoreOptionsFromEnvironment(location, { AWS_ENDPOINT_URL_S3: 'http://h', FH_S3_FORCE_PATH_STYLE: '0' }).forcePathStyle).toBe(false);
    expect(s3StoreOptionsFromEnvironment(location, { FH_S3_FORCE_PATH_STYLE: '1' }).forcePathStyle).toBe(true);
  });
});
