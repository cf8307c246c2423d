"""What every kapi command does before anything else.

* Serve attrs's and cattrs's generated code, and the patterns modules compile as they load,
  from the cache beside kapi's bytecode (:mod:`kapi.host.codegen`).
* Collect cyclic garbage less eagerly. A command builds thousands of long-lived objects as
  its modules load (classes, functions, compiled patterns); at the interpreter's default
  thresholds the collector walks all of them again and again while they are built, which
  costs about a twentieth of a small check. kapi's values (frozen attrs records, plain JSON
  data) hold no cycles, so the young generation is collected every 50,000 allocations and
  the older ones far more rarely; cycles still die, only later.

Each entry module imports this first.
"""

import gc

from kapi.host.codegen import install

START_THRESHOLDS = (50_000, 20, 100)

if gc.get_threshold()[0] < START_THRESHOLDS[0]:
    gc.set_threshold(*START_THRESHOLDS)
install()
