// Loaded before every spec (setupFiles): NestJS 12 is ES modules, and
// @nestjs/throttler (CommonJS) requires @nestjs/common and @nestjs/core. Jest links the
// CommonJS modules a spec imports before it runs the spec's ES modules, so
// the throttler's require would meet @nestjs/common half-loaded ("Cannot
// require() ES Module … in a cycle"). Node itself runs them in import order;
// here those two are simply loaded first.
import '@nestjs/common';
import '@nestjs/core';
