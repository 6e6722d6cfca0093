// The fuzz targets' main without libFuzzer: runs LLVMFuzzerTestOneInput once
// on each file named, or on each regular file of each directory named (not
// recursing), and prints how many. A crash is a crash here too: the
// *_regression tests replay the seed corpus and fuzz/crashes/ this way.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

void Collect(const std::string& path, std::vector<std::string>* files) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    std::fprintf(stderr, "replay: %s: cannot stat\n", path.c_str());
    std::exit(2);
  }
  if (S_ISREG(st.st_mode)) {
    files->push_back(path);
    return;
  }
  if (!S_ISDIR(st.st_mode)) return;
  DIR* d = opendir(path.c_str());
  if (d == nullptr) return;
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    std::string full = path + "/" + n;
    struct stat fs {};
    if (stat(full.c_str(), &fs) == 0 && S_ISREG(fs.st_mode)) names.push_back(full);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  files->insert(files->end(), names.begin(), names.end());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) Collect(argv[i], &files);
  size_t bytes = 0;
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    const std::string data = s.str();
    bytes += data.size();
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(data.data()), data.size());
  }
  std::printf("replay: %zu inputs, %zu bytes, no crash\n", files.size(), bytes);
  return files.empty() ? 1 : 0;
}
