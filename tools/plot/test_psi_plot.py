"""Tests of psi_plot's readers (no matplotlib needed): python3 -m unittest discover -s tools/plot"""
import json
import os
import tempfile
import unittest

import psi_plot


class ReadRunsTest(unittest.TestCase):
    def write(self, text):
        f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        f.write(text)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def line(self, proto, n, s, b):
        return json.dumps({"protocol": proto, "n": n, "seconds": s, "bytes_per_element": b})

    def test_skips_other_lines_and_the_last_run_of_a_size_wins(self):
        p = self.write(
            "==> building\n"
            + self.line("kkrt", 4096, 0.2, 160) + "\n"
            + self.line("ecdh", 4096, 1.2, 69) + "\n"
            + self.line("kkrt", 4096, 0.1, 163.4) + "\n"
        )
        self.assertEqual(
            psi_plot.read_runs([p]), {"kkrt": {4096: (0.1, 163.4)}, "ecdh": {4096: (1.2, 69.0)}}
        )

    def test_a_line_without_the_fields_or_a_file_without_lines_fails(self):
        for text in ['{"protocol": "kkrt", "n": 4}\n', "no json here\n", self.line("kkrt", 0, 1, 1)]:
            with self.assertRaises(SystemExit) as e:
                psi_plot.read_runs([self.write(text)])
            self.assertEqual(e.exception.code, 2)

    def test_reference_points_need_implementation_protocol_and_n(self):
        good = self.write(json.dumps({"points": [{"implementation": "libPSI", "protocol": "kkrt", "n": 8}]}))
        self.assertEqual(len(psi_plot.read_reference(good)), 1)
        self.assertEqual(psi_plot.read_reference(None), [])
        with self.assertRaises(SystemExit):
            psi_plot.read_reference(self.write(json.dumps({"points": [{"protocol": "kkrt", "n": 8}]})))

    def test_the_committed_reference_file_reads(self):
        here = os.path.dirname(os.path.abspath(__file__))
        points = psi_plot.read_reference(os.path.join(here, "..", "..", "docs", "bench-reference.json"))
        self.assertTrue({p["implementation"] for p in points} >= {"libPSI", "volePSI"})


if __name__ == "__main__":
    unittest.main()
