"""Coming and going: the whole app written to one archive and read back, and
conversation histories brought in from other assistants (ChatGPT, Claude).

A room above every other room of the core that holds what the user owns
(chat, memory, tasks, skills, dreaming): it reads and writes them all, and
none of them knows it exists.
"""
