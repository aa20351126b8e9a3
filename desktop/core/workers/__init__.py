"""Background workers: objectives a conversation (or a worker) hands off,
run one after another at background priority, in the order their
dependencies allow (a DAG), their state kept in the database.

``dag`` holds the graph's rules, ``spawning`` turns a ``spawn_sub_session``
call into a stored worker, ``prompts`` the texts a worker reads and the
reports it sends, ``runner`` one worker's tool loop and ``service`` the
``Workers`` the host drives.  Qt-free: the host's clock wakes it.
"""
