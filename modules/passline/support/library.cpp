// passline.support: shared libraries, for plugins.
module;
#include <cxxabi.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>
module passline.support;

namespace passline::support {

namespace {

/// `name` as C++ spells it, if it is a mangled name the standard library's
/// demangler reads; else `name`.
std::string demangled(const char* name) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
  return status == 0 && text ? std::string(text.get()) : std::string(name);
}

/// dlerror's text without the path it begins with, and with a symbol it
/// names demangled.
std::string reason(const std::string& path, std::string text) {
  if (text.starts_with(path + ": ")) text.erase(0, path.size() + 2);
  if (text.find("ELF") != std::string::npos || text.find("file too short") != std::string::npos) {
    return "not a shared library (" + text + ")";
  }
  constexpr std::string_view undefined = "undefined symbol: ";
  if (text.starts_with(undefined)) {
    const std::string symbol = text.substr(undefined.size());
    text = "it needs '" + demangled(symbol.c_str()) + "', which this program does not define";
  }
  return text;
}

}  // namespace

std::shared_ptr<const SharedLibrary> SharedLibrary::open(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) throw std::runtime_error("no such file");
  if (!S_ISREG(info.st_mode)) throw std::runtime_error("not a file");
  // dlopen searches the library path for a name without a slash; a plugin
  // is named by its path.
  const std::string named = path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = ::dlopen(named.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = ::dlerror();
    throw std::runtime_error(reason(named, error != nullptr ? error : "it cannot be loaded"));
  }
  return std::shared_ptr<const SharedLibrary>(new SharedLibrary(handle));
}

SharedLibrary::~SharedLibrary() { ::dlclose(handle_); }

void SharedLibrary::keep_loaded(std::shared_ptr<const SharedLibrary> library) {
  // Never destroyed: the libraries stay until the process ends, after every
  // static destructor that may still run their code.
  static auto* const kept = new std::vector<std::shared_ptr<const SharedLibrary>>;
  static std::mutex lock;
  const std::scoped_lock held(lock);
  kept->push_back(std::move(library));
}

void* SharedLibrary::symbol(const char* name) const { return ::dlsym(handle_, name); }

void share_symbols_of(const void* address) {
  Dl_info info{};
  if (::dladdr(address, &info) == 0 || info.dli_fname == nullptr) {
    throw std::runtime_error("the library that holds passline cannot be found");
  }
  if (::dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL) == nullptr) {
    const char* error = ::dlerror();
    throw std::runtime_error(std::string("cannot share passline's symbols: ") + (error != nullptr ? error : "?"));
  }
}

}  // namespace passline::support
