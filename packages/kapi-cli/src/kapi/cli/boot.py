"""What every kapi command does before anything else: serve attrs's and cattrs's generated
code from the cache beside kapi's bytecode (:mod:`kapi.host.codegen`). Each entry module
imports this first."""

from kapi.host.codegen import install

install()
