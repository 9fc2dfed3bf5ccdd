#!/usr/bin/env python3
"""Tests of check_library_references.py and cpp_definitions.py on small made-up checkouts: a
library file, a lesson that cites it, and the checker's verdict.

    lessons/common/check_library_references_test.py
"""
import pathlib
import tempfile
import textwrap
import unittest

from check_library_references import check
from cpp_definitions import read_definitions, strip_comments_and_literals

MLP_HPP = """\
    #pragma once
    namespace tplab::tp1d {
    /// The 1D MLP.
    class Mlp1D {
     public:
      Mlp1D(int width);
      Tensor forward(const Tensor& x);
      Tensor backward(const Tensor& dy);
      int width() const { return width_; }

     private:
      int width_;
    };
    Tensor make_mlp(int width);
    }  // namespace tplab::tp1d
    """

MLP_CPP = """\
    #include "tp1d/mlp_1d.hpp"
    namespace tplab::tp1d {
    namespace {
    // scale() is used by forward below.
    int scale(int x) { return 2 * x; }
    }  // namespace

    Mlp1D::Mlp1D(int width) : width_{width} {}

    Tensor Mlp1D::forward(const Tensor& x) {
      return x;  // [m, h]
    }

    Tensor Mlp1D::backward(const Tensor& dy) {
      const char* name = "Mlp1D::gradients(";
      return dy;
    }

    Tensor make_mlp(int width) {
      return Mlp1D(scale(width)).forward({});
    }
    }  // namespace tplab::tp1d
    """


class CheckoutTest(unittest.TestCase):
    """Each test writes a checkout with parallel/tp1d/mlp_1d.{hpp,cpp} and one lesson."""

    def setUp(self):
        self._directory = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self._directory.name)
        self.write("parallel/tp1d/mlp_1d.hpp", MLP_HPP)
        self.write("parallel/tp1d/mlp_1d.cpp", MLP_CPP)

    def tearDown(self):
        self._directory.cleanup()

    def write(self, path, text):
        file = self.root / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(textwrap.dedent(text))

    def cite(self, comment):
        """A lesson whose solution carries comment above its function."""
        self.write("lessons/03-1d-mlp/solution.cpp", f"{comment}\nint solution() {{ return 0; }}\n")

    def problems(self):
        problems, checked = check(self.root)
        self.assertGreater(checked, 0)
        return problems

    def assert_one_problem(self, *parts):
        problems = self.problems()
        self.assertEqual(len(problems), 1, problems)
        for part in parts:
            self.assertIn(part, problems[0])
        return problems[0]

    def test_a_correct_citation_passes(self):
        self.cite("// The library's version: parallel/tp1d/mlp_1d.cpp, Mlp1D::forward, with\n"
                  "// parallel/tp1d/mlp_1d.cpp, Mlp1D::Mlp1D and make_mlp.")
        self.assertEqual(self.problems(), [])

    def test_a_class_and_an_inline_member_pass_in_the_header(self):
        self.cite("// parallel/tp1d/mlp_1d.hpp, Mlp1D and Mlp1D::width.")
        self.assertEqual(self.problems(), [])

    def test_a_renamed_function_fails(self):
        self.cite("// The library's version: parallel/tp1d/mlp_1d.cpp, Mlp1D::backward.")
        self.write("parallel/tp1d/mlp_1d.cpp",
                   MLP_CPP.replace("Mlp1D::backward(", "Mlp1D::backward_pass("))
        self.assert_one_problem("lessons/03-1d-mlp/solution.cpp",
                                "parallel/tp1d/mlp_1d.cpp, Mlp1D::backward:",
                                "defines no Mlp1D::backward", "grep -rn 'backward(' parallel/")

    def test_a_function_moved_to_another_file_is_found_there(self):
        self.cite("// The library's version: parallel/tp1d/mlp_1d.cpp, Mlp1D::backward.")
        backward = "Tensor Mlp1D::backward(const Tensor& dy) {"
        self.write("parallel/tp1d/mlp_1d.cpp", MLP_CPP.replace(backward, "Tensor unused() {"))
        self.write("parallel/tp1d/mlp_1d_backward.cpp",
                   f"namespace tplab::tp1d {{\n{backward}\n  return dy;\n}}\n}}\n")
        self.assert_one_problem("it is defined in parallel/tp1d/mlp_1d_backward.cpp")

    def test_a_name_only_in_a_comment_fails(self):
        self.cite("// parallel/tp1d/mlp_1d.cpp, scale_twice.")
        self.write("parallel/tp1d/mlp_1d.cpp",
                   MLP_CPP.replace("// scale() is", "// scale_twice(int x) { return x; } is"))
        self.assert_one_problem("defines no scale_twice")

    def test_a_name_only_in_a_block_comment_or_a_string_fails(self):
        self.cite("// parallel/tp1d/mlp_1d.cpp, Mlp1D::gradients and halve.")
        self.write("parallel/tp1d/mlp_1d.cpp",
                   MLP_CPP + "/* int halve(int x) {\n  return x / 2;\n} */\n")
        problems = self.problems()
        self.assertEqual(len(problems), 2, problems)
        self.assertIn("defines no Mlp1D::gradients", problems[0])
        self.assertIn("defines no halve", problems[1])

    def test_a_call_inside_a_body_is_no_definition(self):
        self.write("parallel/tp1d/mlp_1d.cpp", MLP_CPP.replace(
            "int scale(int x) { return 2 * x; }", "int scale(int x) { return twice(x); }"))
        self.cite("// parallel/tp1d/mlp_1d.cpp, twice.")
        self.assert_one_problem("defines no twice")

    def test_a_header_that_only_declares_fails(self):
        self.cite("// The library's version: parallel/tp1d/mlp_1d.hpp, Mlp1D::backward, and\n"
                  "// parallel/tp1d/mlp_1d.hpp, make_mlp.")
        problems = self.problems()
        self.assertEqual(len(problems), 2, problems)
        for name in ("Mlp1D::backward", "make_mlp"):
            self.assertTrue(any(f"only declares {name}: cite the file that defines it; it is "
                                "defined in parallel/tp1d/mlp_1d.cpp" in p for p in problems))

    def test_a_member_cited_without_its_class_fails(self):
        self.cite("// parallel/tp1d/mlp_1d.cpp, forward.")
        self.assert_one_problem("defines no forward of its own, but Mlp1D::forward")

    def test_lines_added_above_a_function_do_not_fail(self):
        self.cite("// The library's version: parallel/tp1d/mlp_1d.cpp, Mlp1D::backward.")
        self.assertEqual(self.problems(), [])
        longer = MLP_CPP.replace("Tensor Mlp1D::backward(",
                                 "// Three more lines\n// of comment\n\nTensor Mlp1D::backward(")
        self.write("parallel/tp1d/mlp_1d.cpp", longer)
        self.assertEqual(self.problems(), [])

    def test_a_citation_with_a_line_number_fails(self):
        self.cite("// The library's version: parallel/tp1d/mlp_1d.cpp, Mlp1D::forward (line 10).")
        self.assert_one_problem("'parallel/tp1d/mlp_1d.cpp, Mlp1D::forward (line 10' names a line")

    def test_a_missing_file_fails(self):
        self.cite("// parallel/tp1d/mlp_2d.cpp, Mlp2D::forward.")
        self.assert_one_problem("there is no parallel/tp1d/mlp_2d.cpp")

    def test_a_readme_naming_a_missing_file_fails(self):
        self.write("lessons/03-1d-mlp/README.md", "The layers of `parallel/tp1d/mlp_3d.cpp`.\n")
        self.assert_one_problem("lessons/03-1d-mlp/README.md: there is no parallel/tp1d/mlp_3d.cpp")

    def test_a_readme_citation_is_checked(self):
        self.write("lessons/03-1d-mlp/README.md",
                   "See (`parallel/tp1d/mlp_1d.cpp`, `Mlp1D::forward`) and\n"
                   "(parallel/tp1d/mlp_1d.cpp, `Mlp1D::reverse`).\n")
        self.assert_one_problem("README.md: parallel/tp1d/mlp_1d.cpp, Mlp1D::reverse:")


class DefinitionsTest(unittest.TestCase):
    """What cpp_definitions.py takes for a definition, on the forms the library writes."""

    def defined(self, source):
        return sorted("::".join(e.least_name()) for e in read_definitions(source).defined)

    def test_strips_comments_strings_characters_and_directives(self):
        source = ('#define F(x) { x }\nint a = 1\'000; // f() {\n/* g() {\n} */ '
                  'const char* s = "h() {"; char c = \'{\'; auto r = R"x(k() {)x";\n')
        stripped = strip_comments_and_literals(source)
        for mention in ("F(", "f()", "g()", "h()", "k()", "'{'"):
            self.assertNotIn(mention, stripped)
        self.assertEqual(stripped.count("\n"), source.count("\n"))
        self.assertIn("1'000", stripped)

    def test_member_initializers_in_braces_are_not_bodies(self):
        source = "A::A(int x) : x_{x}, y_(x), z_{} {}\nvoid after() {}\n"
        self.assertEqual(self.defined(source), ["A::A", "after"])

    def test_templates_nested_classes_and_enums(self):
        source = textwrap.dedent("""\
            template <class T, typename U = int> struct Pair final : Base<T> {
              struct Inner { void f() const noexcept {} };
              enum class Kind : int { a, b };
              std::function<void(int)> callback = [](int) {};
              template <class V> V get() const { return V{}; }
            };
            std::unique_ptr<Pair<int>> make_pair() { return {}; }
            """)
        self.assertEqual(self.defined(source),
                         ["Pair", "Pair::Inner", "Pair::Inner::f", "Pair::get", "make_pair"])


if __name__ == "__main__":
    unittest.main()
