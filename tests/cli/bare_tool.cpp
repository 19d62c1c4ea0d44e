// words-opt: the least a tool gives passline::driver::main, for an IR of
// words that has no verifier, no functions and no ReduceTraits: what the
// driver says when a flag asks for what the IR does not have (tests
// cli.bare_tool.*).
#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
import passline;
import passline.driver;

struct Words {
  std::vector<std::string> words;
};

template <>
struct passline::IRTraits<Words> {
  static std::string print(const Words& ir) {
    std::string out;
    for (const std::string& word : ir.words) out += word + "\n";
    return out;
  }
};

/// Writes every word in capitals.
struct Upper {
  static constexpr passline::PassInfo info{.name = "upper", .summary = "every word in capitals"};
  Words operator()(Words ir, passline::PassContext&) const {
    for (std::string& word : ir.words) {
      for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return ir;
  }
};

struct WordsTool {
  std::string_view name = "words-opt";
  Words read(std::string text, const std::string& file) {
    Words ir;
    std::size_t at = 0;
    while (at < text.size()) {
      const std::size_t end = std::min(text.find('\n', at), text.size());
      std::string word = text.substr(at, end - at);
      if (word.find(' ') != std::string::npos) {
        throw passline::driver::InputError(file, text, at + word.find(' '), "a word has no space in it");
      }
      if (!word.empty()) ir.words.push_back(std::move(word));
      at = end + 1;
    }
    return ir;
  }
  passline::Registry<Words>& registry() {
    static passline::Registry<Words>& passes = passline::Registry<Words>::global().add<Upper>();
    return passes;
  }
};

int main(int argc, char** argv) { return passline::driver::main<Words>(argc, argv, WordsTool{}); }
