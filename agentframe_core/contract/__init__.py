"""The contract: the data model, the protocols every part implements, the hookspecs, the errors.

Imports nothing else of the kernel; everything else imports it.
"""
