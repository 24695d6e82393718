/**
 * The parts of `@aws-sdk/client-s3` the store uses, named one by one (`sdk.ts` imports this module
 * on the first request; also exported as `@fh/store-s3/sdk-client`): a bundler that takes the SDK
 * into one file (`fh hook`'s `hook-aws-sdk.cjs`) keeps only these and what they need, not the
 * client's hundred other commands.
 */
export {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
