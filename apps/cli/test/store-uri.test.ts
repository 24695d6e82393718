import { InvalidArgumentError } from '@fh/core';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/cli-errors.js';
import { assertS3EndpointUrl, defaultStoreUri, describeStoreLocation, parseStoreUri } from '../src/store-uri.js';
import { runCli, sandbox } from './helpers.js';

const context = { cwd: '/work/project', home: '/home/me' };

describe('store URIs', () => {
  it('reads fs:<folder> with absolute, relative and ~ folders', () => {
    expect(parseStoreUri('fs:/var/fh', context)).toEqual({ kind: 'fs', folder: '/var/fh' });
    expect(parseStoreUri('fs:store', context)).toEqual({ kind: 'fs', folder: '/work/project/store' });
    expect(parseStoreUri('fs:~/.fh', context)).toEqual({ kind: 'fs', folder: '/home/me/.fh' });
    expect(parseStoreUri('fs:~', context)).toEqual({ kind: 'fs', folder: '/home/me' });
    expect(parseStoreUri('FS:/x/../y', context)).toEqual({ kind: 'fs', folder: '/y' });
  });

  it('reads a bare folder as an fs store', () => {
    expect(parseStoreUri('/var/fh', context)).toEqual({ kind: 'fs', folder: '/var/fh' });
    expect(parseStoreUri('./fh-store', context)).toEqual({ kind: 'fs', folder: '/work/project/fh-store' });
  });

  it('rejects an unknown scheme and an empty folder with a usage error naming the value', () => {
    expect(() => parseStoreUri('ftp://host/x', context)).toThrow(
      new UsageError('unknown store "ftp://host/x": use fs:<folder> or s3://<bucket>/<prefix>'),
    );
    expect(() => parseStoreUri('fs:', context)).toThrow(new UsageError('store "fs:" names no folder: use fs:<folder>'));
  });

  it('reads s3://<bucket>/<prefix>, with an optional prefix and no surrounding slashes', () => {
    expect(parseStoreUri('s3://fh-bucket/team/project', context)).toEqual({ kind: 's3', bucket: 'fh-bucket', prefix: 'team/project' });
    expect(parseStoreUri('s3://fh-bucket/team/', context)).toEqual({ kind: 's3', bucket: 'fh-bucket', prefix: 'team' });
    expect(parseStoreUri('s3://fh-bucket', context)).toEqual({ kind: 's3', bucket: 'fh-bucket', prefix: '' });
    expect(describeStoreLocation(parseStoreUri('s3://fh-bucket/p', context))).toBe('s3://fh-bucket/p');
    expect(() => parseStoreUri('s3://', context)).toThrow(new UsageError('store "s3://" names no bucket: use s3://<bucket>/<prefix>'));
    expect(() => parseStoreUri('s3:fh-bucket', context)).toThrow(new UsageError('store "s3:fh-bucket" names no bucket: use s3://<bucket>/<prefix>'));
  });

  it('defaults to $FH_HOME, else ~/.fh', () => {
    expect(defaultStoreUri({ FH_HOME: '/data/fh' })).toBe('fs:/data/fh');
    expect(defaultStoreUri({ FH_HOME: '' })).toBe('fs:~/.fh');
    expect(defaultStoreUri({})).toBe('fs:~/.fh');
  });

  it('accepts an http(s) S3 endpoint, or none, and refuses any other value naming the variable', () => {
    expect(() => assertS3EndpointUrl({})).not.toThrow();
    expect(() => assertS3EndpointUrl({ AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000' })).not.toThrow();
    expect(() => assertS3EndpointUrl({ AWS_ENDPOINT_URL: 'https://s3.example.com/base' })).not.toThrow();
    expect(() => assertS3EndpointUrl({ AWS_ENDPOINT_URL_S3: 'notaurl', AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true' })).not.toThrow();
    expect(() => assertS3EndpointUrl({ AWS_ENDPOINT_URL_S3: 'notaurl', AWS_ENDPOINT_URL: 'http://127.0.0.1:9000' })).toThrow(
      new InvalidArgumentError('AWS_ENDPOINT_URL_S3 must be an http:// or https:// URL such as http://127.0.0.1:9000, not "notaurl"; nothing was read or written'),
    );
    expect(() => assertS3EndpointUrl({ AWS_ENDPOINT_URL: 'ftp://host' })).toThrow(
      new InvalidArgumentError('AWS_ENDPOINT_URL must be an http:// or https:// URL such as http://127.0.0.1:9000, not "ftp://host"; nothing was read or written'),
    );
  });

  it('fh with an S3 store and an endpoint that is not a URL is a usage error (exit 2, FH_INVALID_ARGUMENT)', async () => {
    const box = await sandbox();
    const result = await runCli(['--store', 's3://fh-bucket/team', '--session', 's1', '--json', 'list'], {
      home: box.home,
      cwd: box.project,
      env: { AWS_ENDPOINT_URL_S3: 'notaurl', AWS_ACCESS_KEY_ID: 'key', AWS_SECRET_ACCESS_KEY: 'secret', AWS_REGION: 'us-east-1' },
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('fh: AWS_ENDPOINT_URL_S3 must be an http:// or https:// URL such as http://127.0.0.1:9000, not "notaurl"; nothing was read or written\n');
    expect(JSON.parse(result.stdout)).toEqual({
      error: {
        code: 'FH_INVALID_ARGUMENT',
        message: 'AWS_ENDPOINT_URL_S3 must be an http:// or https:// URL such as http://127.0.0.1:9000, not "notaurl"; nothing was read or written',
        details: [],
      },
    });
  });
});
