// SHALE_EXPORT marks the names that libshale exports. The library is built with hidden
// visibility, so only the public C++ API and the C ABI are visible to its users.
#ifndef SHALE_EXPORT_H_
#define SHALE_EXPORT_H_

#if defined(_WIN32)
#define SHALE_EXPORT
#else
// The standard attribute form, so that it combines with [[nodiscard]] on a class.
#define SHALE_EXPORT [[gnu::visibility("default")]]
#endif

#endif  // SHALE_EXPORT_H_
