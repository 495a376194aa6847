-- The address of each IP subject as inet, indexed in address order: check_block reads the IP subjects of a
-- CIDR block as one range of this index (a block is an address range; their text keys do not sort by address).
-- An expression index, which schema.prisma cannot declare: the key of an 'ipaddress' subject is always the
-- canonical text parseIp printed (subjects/normalize.ts), which every PostgreSQL reads as inet.
CREATE INDEX "Subject_ip_address_idx" ON "Subject" ((key::inet), "workspaceId") WHERE kind = 'ipaddress';
