package hopper

// Version is this release of hopper, in semantic versioning with a leading
// "v", as the module is tagged: the library's tag is Version and the
// outbox module's is "outbox/" + Version, with the same numbers. Before
// 1.0 a minor release may change the public API and the layout stored in
// Redis, each change listed in CHANGELOG.md with what to do; a patch
// release changes neither (docs/versions.md). `hopper version` prints it
// and the dashboard shows it in its footer. It is a constant: safe to read
// from any goroutine.
const Version = "v0.1.0"
